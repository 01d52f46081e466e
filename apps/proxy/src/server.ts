import { GatewayResponse, listen, listenMetrics, type Listening } from "@gateway/http";
import { inClusterWorker, joinMetricsCluster, metricsHandler } from "@gateway/metrics";
import { createProxyHandler } from "./app.ts";
import { createProxyServices, type ProxyServices } from "./services.ts";
import type { ProxyConfig } from "./config.ts";
import { serveResponsesWebSocket } from "./responses-state/websocket.ts";

export interface RunningProxy {
  url: string;
  port: number;
  http: Listening;
  /** The metrics port's server (METRICS_PORT); null in a cluster worker, whose primary serves it. */
  metricsHttp: Listening | null;
  services: ProxyServices;
  /** Graceful stop: not ready, no new connections, in-flight requests finish (up to the deadline), billing flushed. */
  close(): Promise<void>;
}

export async function startProxy(config: ProxyConfig, logger?: ProxyServices["logger"]): Promise<RunningProxy> {
  const services = await createProxyServices(config, logger);
  const http = await listen(createProxyHandler(services), config.PORT, config.HOST, { ServerResponse: GatewayResponse });
  // Responses over WebSocket on GET /v1/responses (contract section 18); other upgrades refused.
  const webSockets = serveResponsesWebSocket(http.server, services, http.url);
  // In a cluster worker the primary serves METRICS_PORT with every worker's registry summed.
  const clustered = inClusterWorker();
  if (clustered) joinMetricsCluster(services.registry);
  const metricsHttp = clustered ? null : await listenMetrics(metricsHandler(services.registry), config.METRICS_PORT, config.METRICS_HOST);
  let closing: Promise<void> | null = null;
  return {
    url: http.url,
    port: http.port,
    http,
    metricsHttp,
    services,
    close() {
      closing ??= (async () => {
        services.state.shuttingDown = true;
        await webSockets.close(config.SHUTDOWN_DEADLINE_MS);
        await http.close(config.SHUTDOWN_DEADLINE_MS);
        await metricsHttp?.close(1_000);
        await services.close();
      })();
      return closing;
    },
  };
}
