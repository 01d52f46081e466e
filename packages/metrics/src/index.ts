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
 * Label children looked up through one Map per label, in order, instead of prom-client hashing a
 * label object on every observation (the hot path records several per request): no key string or
 * argument array per lookup. Bounded by the label sets seen.
 */
export function childCache<Child>(make: (values: string[]) => Child): (a: string, b?: string, c?: string, d?: string) => Child {
  const root: Level = new Map();
  return (a, b, c, d) => {
    const last = below(below(below(root, a), b), c);
    let child = last.get(d) as Child | undefined;
    if (child === undefined) {
      child = make([a, b, c, d].filter((value): value is string => value !== undefined));
      last.set(d, child);
    }
    return child;
  };
}

/** One label's children: the next label's level, or (for the last label) the child itself. */
type Level = Map<string | undefined, unknown>;

function below(level: Level, value: string | undefined): Level {
  let next = level.get(value) as Level | undefined;
  if (next === undefined) {
    next = new Map();
    level.set(value, next);
  }
  return next;
}

/** prom-client 15's per-series state (its `hashMap`), which `get()` and every registry read. */
interface SeriesState {
  labels: Record<string, string | number>;
  value?: number;
  bucketValues?: Record<number, number>;
  sum?: number;
  count?: number;
}
interface MetricState {
  hashMap?: Record<string, SeriesState>;
  labelNames?: string[];
  upperBounds?: number[];
}

/** The series of `metric` with exactly these label values (after prom-client created it), if its state is where prom-client 15 keeps it. */
function seriesOf(metric: unknown, values: string[]): SeriesState | undefined {
  const { hashMap, labelNames } = metric as MetricState;
  if (!hashMap || !labelNames) return undefined;
  return Object.values(hashMap).find((series) => labelNames.every((name, index) => String(series.labels[name]) === values[index]));
}

/**
 * Counter children that add to their series in place. prom-client's own children hash and
 * validate their label object on every `inc` (several per request on the proxy's hot path); these
 * do it once per label set, then add to the series prom-client reads when it is collected. Falls
 * back to prom-client's child if its internal state is not where version 15 keeps it (a test
 * compares both outputs).
 */
export function counterChildren(counter: Counter<string>): (a: string, b?: string, c?: string, d?: string) => { inc(): void } {
  return childCache((values) => {
    const child = counter.labels(...values);
    child.inc(0);
    const series = seriesOf(counter, values);
    if (series === undefined || typeof series.value !== "number") return { inc: () => child.inc() };
    return {
      inc: () => {
        series.value! += 1;
      },
    };
  });
}

/** Histogram children that add to their series in place (see `counterChildren`). */
export function histogramChildren(histogram: Histogram<string>): (a: string, b?: string, c?: string, d?: string) => { observe(value: number): void } {
  return childCache((values) => {
    const child = histogram.labels(...values);
    let series: SeriesState | undefined;
    const bounds = (histogram as unknown as MetricState).upperBounds;
    // prom-client keys its buckets by the bound itself: the keys as strings once, not a number
    // turned into a property name on every observation.
    const keys = Array.isArray(bounds) ? bounds.map(String) : [];
    const fast = (value: number) => {
      // prom-client's bucket: the first upper bound >= value (+Inf is the count); the sum and count.
      const buckets = series!.bucketValues as unknown as Record<string, number>;
      for (let index = 0; index < keys.length; index += 1) {
        if (value <= bounds![index]!) {
          buckets[keys[index]!]! += 1;
          break;
        }
      }
      series!.sum! += value;
      series!.count! += 1;
    };
    let observe = (value: number) => {
      // The first observation goes through prom-client, which creates the series.
      child.observe(value);
      series = seriesOf(histogram, values);
      const usable = series !== undefined && Array.isArray(bounds) && series.bucketValues !== undefined && typeof series.sum === "number" && typeof series.count === "number";
      observe = usable ? fast : (next: number) => child.observe(next);
    };
    return { observe: (value: number) => (Number.isFinite(value) ? observe(value) : child.observe(value)) };
  });
}

const TRACKED_ROUTE = Symbol("metrics.route");
const TRACKED_STARTED = Symbol("metrics.started");
interface TrackedResponse extends ServerResponse {
  [TRACKED_ROUTE]?: string;
  [TRACKED_STARTED]?: number;
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
  const requestsFor = counterChildren(requests);
  const durationFor = histogramChildren(duration);
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
  // The proxy's every request: one listener shared by all responses (a response finishes once),
  // its route and start kept on the response, so no closure or once-wrapper per request.
  function trackedFinish(this: TrackedResponse): void {
    record(this[TRACKED_ROUTE]!, this.req, this, this[TRACKED_STARTED]!);
  }
  return Object.assign(middleware, {
    track(_request: IncomingMessage, response: ServerResponse, route: string): void {
      const tracked = response as TrackedResponse;
      tracked[TRACKED_ROUTE] = route;
      tracked[TRACKED_STARTED] = performance.now();
      response.on("finish", trackedFinish);
    },
  });
}
