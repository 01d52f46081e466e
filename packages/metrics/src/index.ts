import type { IncomingMessage, ServerResponse } from "node:http";
import { collectDefaultMetrics, Counter, Histogram, Registry } from "prom-client";
import { inClusterWorker, requestClusterMetrics } from "./cluster.ts";

export { Counter, Gauge, Histogram, Registry } from "prom-client";
export { clusterMetricsText, inClusterWorker, joinMetricsCluster, serveMetricsViewToWorkers } from "./cluster.ts";

/** Seconds buckets for request latency: sub-millisecond overhead up to long generations. */
export const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/** One registry per process: Node's default metrics plus the app label on everything. */
export function createRegistry(app: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ app });
  collectDefaultMetrics({ register: registry });
  return registry;
}

/**
 * `GET /metrics` in the Prometheus text format; works as an express or a node:http handler. In a
 * cluster worker it answers with the whole cluster's view, collected by the primary.
 */
export function metricsHandler(registry: Registry) {
  return (_request: IncomingMessage, response: ServerResponse): void => {
    (inClusterWorker() ? requestClusterMetrics() : registry.metrics()).then(
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

/**
 * Label children looked up by one joined key instead of prom-client hashing a label object on
 * every observation (the hot path records several per request). Bounded by the label sets seen.
 */
export function childCache<Child>(make: (values: string[]) => Child): (...values: string[]) => Child {
  const children = new Map<string, Child>();
  return (...values) => {
    const key = values.join("\u0000");
    let child = children.get(key);
    if (child === undefined) {
      child = make(values);
      children.set(key, child);
    }
    return child;
  };
}

interface RoutedRequest extends IncomingMessage {
  route?: { path?: unknown };
}

/** The request counter and latency histogram of one app, as middleware or called directly. */
export interface HttpMetrics {
  /** Express middleware: labels by the matched route pattern ("unmatched" when none). */
  (request: IncomingMessage, response: ServerResponse, next: () => void): void;
  /** For routes served outside Express: counts and times this request under `route` when it finishes. */
  track(request: IncomingMessage, response: ServerResponse, route: string): void;
}

/**
 * Counts every HTTP request and times it, labelled by route pattern (never the raw path, whose
 * ids would explode the label set), method and status.
 */
export function httpMetrics(registry: Registry): HttpMetrics {
  const requests = new Counter({ name: "gateway_http_requests_total", help: "HTTP requests by route, method and status.", labelNames: ["route", "method", "status"], registers: [registry] });
  const duration = new Histogram({ name: "gateway_http_request_duration_seconds", help: "HTTP request latency by route, method and status.", labelNames: ["route", "method", "status"], buckets: LATENCY_BUCKETS, registers: [registry] });
  const requestsFor = childCache((values) => requests.labels(...values));
  const durationFor = childCache((values) => duration.labels(...values));
  const record = (route: string, request: IncomingMessage, response: ServerResponse, started: number) => {
    const method = request.method ?? "GET";
    const status = String(response.statusCode);
    requestsFor(route, method, status).inc();
    durationFor(route, method, status).observe((performance.now() - started) / 1000);
  };
  const middleware = (request: IncomingMessage, response: ServerResponse, next: () => void): void => {
    const started = performance.now();
    response.once("finish", () => {
      const path = (request as RoutedRequest).route?.path;
      record(typeof path === "string" ? path : "unmatched", request, response, started);
    });
    next();
  };
  return Object.assign(middleware, {
    track(request: IncomingMessage, response: ServerResponse, route: string): void {
      const started = performance.now();
      response.once("finish", () => record(route, request, response, started));
    },
  });
}
