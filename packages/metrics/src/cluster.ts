import cluster from "node:cluster";
import { AggregatorRegistry, type PrometheusContentType, type Registry } from "prom-client";

/**
 * One /metrics view for a process per core (node:cluster). prom-client's AggregatorRegistry asks
 * every worker for its registry over IPC and sums (or takes the max, per metric) in the primary.
 * A worker that gets GET /metrics on the shared port asks the primary for that view.
 */
const VIEW_REQUEST = "gateway:metrics-view-request";
const VIEW_RESPONSE = "gateway:metrics-view-response";

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

/** True in a node:cluster worker with an IPC channel to its primary. */
export function inClusterWorker(): boolean {
  return cluster.isWorker && typeof process.send === "function";
}

/** In a worker: lets the primary collect `registry` (installs prom-client's reply listener). */
export function joinMetricsCluster(registry: Registry): void {
  AggregatorRegistry.setRegistries([registry]);
  new AggregatorRegistry();
}

let aggregator: AggregatorRegistry<PrometheusContentType> | null = null;

/** In the primary: the cluster's aggregated metrics text (every connected worker's registry). */
export function clusterMetricsText(): Promise<string> {
  aggregator ??= new AggregatorRegistry();
  return aggregator.clusterMetrics();
}

/** In the primary: answers workers that were asked for /metrics on the shared port. */
export function serveMetricsViewToWorkers(): void {
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
    }, 5_000);
    timer.unref();
    pending.set(id, { resolve, reject, timer });
    process.send!({ type: VIEW_REQUEST, id } satisfies ViewRequest);
  });
}
