import { listen, type Listening } from "@gateway/http";
import { createProxyHandler } from "./app.ts";
import { createProxyServices, type ProxyServices } from "./services.ts";
import type { ProxyConfig } from "./config.ts";

export interface RunningProxy {
  url: string;
  port: number;
  http: Listening;
  services: ProxyServices;
  /** Graceful stop: not ready, no new connections, in-flight requests finish (up to the deadline), billing flushed. */
  close(): Promise<void>;
}

export async function startProxy(config: ProxyConfig, logger?: ProxyServices["logger"]): Promise<RunningProxy> {
  const services = await createProxyServices(config, logger);
  const http = await listen(createProxyHandler(services), config.PORT, config.HOST);
  let closing: Promise<void> | null = null;
  return {
    url: http.url,
    port: http.port,
    http,
    services,
    close() {
      closing ??= (async () => {
        services.state.shuttingDown = true;
        await http.close(config.SHUTDOWN_DEADLINE_MS);
        await services.close();
      })();
      return closing;
    },
  };
}
