import type { IncomingMessage, ServerResponse } from "node:http";
import { collectDefaultMetrics, Counter, Histogram, Registry } from "prom-client";

export { Counter, Gauge, Histogram, Registry } from "prom-client";

/** Seconds buckets for request latency: sub-millisecond overhead up to long generations. */
export const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/** One registry per process: Node's default metrics plus the app label on everything. */
export function createRegistry(app: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ app });
  collectDefaultMetrics({ register: registry });
  return registry;
}

/** `GET /metrics` in the Prometheus text format; works as an express or a node:http handler. */
export function metricsHandler(registry: Registry) {
  return (_request: IncomingMessage, response: ServerResponse): void => {
    registry.metrics().then(
      (text) => {
        response.writeHead(200, { "content-type": registry.contentType });
        response.end(text);
      },
      (error: unknown) => {
        response.writeHead(500, { "content-type": "text/plain" });
        response.end(String(error));
      },
    );
  };
}

interface RoutedRequest extends IncomingMessage {
  route?: { path?: unknown };
}

/**
 * Counts every HTTP request and times it, labelled by route pattern (never the raw path, whose
 * ids would explode the label set), method and status.
 */
export function httpMetrics(registry: Registry) {
  const requests = new Counter({ name: "gateway_http_requests_total", help: "HTTP requests by route, method and status.", labelNames: ["route", "method", "status"], registers: [registry] });
  const duration = new Histogram({ name: "gateway_http_request_duration_seconds", help: "HTTP request latency by route, method and status.", labelNames: ["route", "method", "status"], buckets: LATENCY_BUCKETS, registers: [registry] });
  return (request: IncomingMessage, response: ServerResponse, next: () => void): void => {
    const started = process.hrtime.bigint();
    response.once("finish", () => {
      const path = (request as RoutedRequest).route?.path;
      const labels = { route: typeof path === "string" ? path : "unmatched", method: request.method ?? "GET", status: String(response.statusCode) };
      requests.inc(labels);
      duration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
    });
    next();
  };
}
