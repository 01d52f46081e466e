import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createProxyApp } from "./app.ts";
import { createProxyServices, type ProxyServices } from "./services.ts";
import type { ProxyConfig } from "./config.ts";

export interface RunningProxy {
  url: string;
  port: number;
  server: Server;
  services: ProxyServices;
  /** Graceful stop: not ready, no new connections, in-flight requests finish (up to the deadline), billing flushed. */
  close(): Promise<void>;
}

export async function startProxy(config: ProxyConfig, logger?: ProxyServices["logger"]): Promise<RunningProxy> {
  const services = await createProxyServices(config, logger);
  const server = createServer({ keepAliveTimeout: 65_000 }, createProxyApp(services));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.PORT, config.HOST, resolve);
  });
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | null = null;
  return {
    url: `http://${config.HOST}:${port}`,
    port,
    server,
    services,
    close() {
      closing ??= (async () => {
        services.state.shuttingDown = true;
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        const deadline = setTimeout(() => server.closeAllConnections(), config.SHUTDOWN_DEADLINE_MS);
        await closed;
        clearTimeout(deadline);
        await services.close();
      })();
      return closing;
    },
  };
}
