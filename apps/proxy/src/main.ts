import { loadOrExit } from "@gateway/config";
import { loadProxyConfig } from "./config.ts";
import { startProxy } from "./server.ts";

const config = loadOrExit(() => loadProxyConfig());
const proxy = await startProxy(config);
proxy.services.logger.info({ url: proxy.url }, "proxy listening");

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.once(signal, () => {
    proxy.services.logger.info({ signal }, "shutting down");
    proxy.close().then(
      () => process.exit(0),
      (error: unknown) => {
        proxy.services.logger.error({ err: error }, "shutdown failed");
        process.exit(1);
      },
    );
  });
}
