import cluster from "node:cluster";
import { loadOrExit } from "@gateway/config";
import { shutdownOnSignals } from "@gateway/http";
import { createLogger } from "@gateway/logger";
import { superviseProxy } from "./cluster/supervisor.ts";
import { usableCores } from "./cluster/usable-cores.ts";
import { loadProxyConfig } from "./config.ts";
import { startProxy } from "./server.ts";

const config = loadOrExit(() => loadProxyConfig());
const processes = config.PROXY_PROCESSES ?? usableCores();

if (cluster.isPrimary && processes > 1) {
  await superviseProxy({
    processes,
    metricsPort: config.METRICS_PORT,
    metricsHost: config.METRICS_HOST,
    shutdownDeadlineMs: config.SHUTDOWN_DEADLINE_MS,
    logger: createLogger({ name: "proxy", level: config.LOG_LEVEL }),
  });
} else {
  const proxy = await startProxy(config);
  if (cluster.isPrimary) proxy.services.logger.info({ url: proxy.url, metricsUrl: proxy.metricsHttp ? `${proxy.metricsHttp.url}/metrics` : null }, "proxy listening");
  shutdownOnSignals(() => proxy.close(), proxy.services.logger);
}
