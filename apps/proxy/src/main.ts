import { loadOrExit } from "@gateway/config";
import { shutdownOnSignals } from "@gateway/http";
import { loadProxyConfig } from "./config.ts";
import { startProxy } from "./server.ts";

const config = loadOrExit(() => loadProxyConfig());
const proxy = await startProxy(config);
proxy.services.logger.info({ url: proxy.url }, "proxy listening");

shutdownOnSignals(() => proxy.close(), proxy.services.logger);
