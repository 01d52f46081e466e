import cluster, { type Worker } from "node:cluster";
import { AggregatorRegistry, type MetricObjectWithValues, type MetricValue, type Registry } from "prom-client";

/**
 * One /metrics view for a process per core (node:cluster). The primary asks every worker that has
 * joined for its registry over IPC and sums them (or takes the max, per metric: prom-client's
 * `AggregatorRegistry.aggregate`). A worker joins once it can answer, so one still starting (or
 * restarting) is left out of the view instead of making it wait and fail: prom-client's own
 * `clusterMetrics` asks every forked worker, and a request that reaches one before its listener
 * exists is never answered. A worker that gets GET /metrics on the shared port asks the primary
 * for that view.
 */
const VIEW_REQUEST = "gateway:metrics-view-request";
const VIEW_RESPONSE = "gateway:metrics-view-response";
const JOINED = "gateway:metrics-joined";
const COLLECT_REQUEST = "gateway:metrics-collect-request";
const COLLECT_RESPONSE = "gateway:metrics-collect-response";
/** How long the primary and a worker wait for an answer over IPC. */
const ANSWER_TIMEOUT_MS = 5_000;

interface ViewRequest {
  type: typeof VIEW_REQUEST;
  id: number;
}

interface ViewResponse {
  type: typeof VIEW_RESPONSE;
  id: number;
  text?: string;
  error?: string;
}

interface CollectRequest {
  type: typeof COLLECT_REQUEST;
  id: number;
}

interface CollectResponse {
  type: typeof COLLECT_RESPONSE;
  id: number;
  metrics?: MetricObjectWithValues<MetricValue<string>>[];
  error?: string;
}

/** True in a node:cluster worker with an IPC channel to its primary. */
export function inClusterWorker(): boolean {
  return cluster.isWorker && typeof process.send === "function";
}

/** In a worker: answers the primary's collections with `registry`, then tells it so. */
export function joinMetricsCluster(registry: Registry): void {
  process.on("message", (message: unknown) => {
    const request = message as Partial<CollectRequest> | null;
    if (request?.type !== COLLECT_REQUEST || typeof request.id !== "number") return;
    const id = request.id;
    registry.getMetricsAsJSON().then(
      (metrics) => process.send?.({ type: COLLECT_RESPONSE, id, metrics } satisfies CollectResponse),
      (error: unknown) => process.send?.({ type: COLLECT_RESPONSE, id, error: String(error) } satisfies CollectResponse),
    );
  });
  process.send!({ type: JOINED });
}

/** In the primary: the workers that joined, and the collections waiting for their answers. */
const joined = new Set<Worker>();
const collections = new Map<number, { waiting: Set<Worker>; responses: MetricObjectWithValues<MetricValue<string>>[][]; done: (error: Error | null) => void }>();
let nextCollection = 0;
let primaryListening = false;

function listenAsPrimary(): void {
  if (primaryListening) return;
  primaryListening = true;
  cluster.on("message", (worker, message: unknown) => {
    const typed = message as { type?: string; id?: unknown } | null;
    if (typed?.type === JOINED) joined.add(worker);
    if (typed?.type !== COLLECT_RESPONSE || typeof typed.id !== "number") return;
    const response = typed as CollectResponse;
    const collection = collections.get(response.id);
    if (!collection || !collection.waiting.delete(worker)) return;
    if (response.error !== undefined || !response.metrics) return collection.done(new Error(response.error ?? "no metrics from a worker"));
    collection.responses.push(response.metrics);
    if (collection.waiting.size === 0) collection.done(null);
  });
  cluster.on("exit", (worker) => {
    joined.delete(worker);
    // A collection no longer waits for a worker that is gone.
    for (const collection of collections.values()) {
      if (collection.waiting.delete(worker) && collection.waiting.size === 0) collection.done(null);
    }
  });
}

/** In the primary: the cluster's aggregated metrics text (every joined worker's registry). */
export function clusterMetricsText(): Promise<string> {
  listenAsPrimary();
  const id = nextCollection++;
  const waiting = new Set([...joined].filter((worker) => worker.isConnected()));
  if (waiting.size === 0) return Promise.resolve("");
  return new Promise((resolve, reject) => {
    const responses: MetricObjectWithValues<MetricValue<string>>[][] = [];
    const timer = setTimeout(() => done(new Error("a worker did not answer the metrics collection")), ANSWER_TIMEOUT_MS);
    timer.unref();
    const done = (error: Error | null) => {
      if (!collections.delete(id)) return;
      clearTimeout(timer);
      if (error) reject(error);
      else AggregatorRegistry.aggregate(responses).metrics().then(resolve, reject);
    };
    collections.set(id, { waiting, responses, done });
    for (const worker of waiting) worker.send({ type: COLLECT_REQUEST, id } satisfies CollectRequest);
  });
}

/** In the primary: answers workers that were asked for /metrics on the shared port. */
export function serveMetricsViewToWorkers(): void {
  listenAsPrimary();
  cluster.on("message", (worker, message: unknown) => {
    const request = message as Partial<ViewRequest> | null;
    if (request?.type !== VIEW_REQUEST || typeof request.id !== "number") return;
    const id = request.id;
    clusterMetricsText().then(
      (text) => worker.isConnected() && worker.send({ type: VIEW_RESPONSE, id, text } satisfies ViewResponse),
      (error: unknown) => worker.isConnected() && worker.send({ type: VIEW_RESPONSE, id, error: String(error) } satisfies ViewResponse),
    );
  });
}

let nextId = 0;
const pending = new Map<number, { resolve: (text: string) => void; reject: (error: Error) => void; timer: NodeJS.Timeout }>();
let listening = false;

/** In a worker: asks the primary for the whole cluster's metrics text (5 s timeout). */
export function requestClusterMetrics(): Promise<string> {
  if (!listening) {
    listening = true;
    process.on("message", (message: unknown) => {
      const response = message as Partial<ViewResponse> | null;
      if (response?.type !== VIEW_RESPONSE || typeof response.id !== "number") return;
      const waiter = pending.get(response.id);
      if (!waiter) return;
      pending.delete(response.id);
      clearTimeout(waiter.timer);
      if (typeof response.text === "string") waiter.resolve(response.text);
      else waiter.reject(new Error(response.error ?? "no metrics from the primary"));
    });
  }
  const id = nextId++;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      pending.delete(id);
      reject(new Error("the primary did not answer the metrics request"));
    }, ANSWER_TIMEOUT_MS);
    timer.unref();
    pending.set(id, { resolve, reject, timer });
    process.send!({ type: VIEW_REQUEST, id } satisfies ViewRequest);
  });
}
