import cluster, { type Worker } from "node:cluster";
import type { Logger } from "@gateway/logger";
import { listenMetrics, type Listening } from "@gateway/http";
import { clusterMetricsText, serveMetricsViewToWorkers } from "@gateway/metrics";

export interface SupervisorOptions {
  processes: number;
  /** Served by the primary with the cluster's aggregated view (workers serve /metrics only on PORT, with METRICS_PUBLIC). */
  metricsPort: number;
  metricsHost: string;
  /** Workers get this long (plus a margin) to finish their in-flight requests on SIGTERM. */
  shutdownDeadlineMs: number;
  logger: Logger;
}

/** A worker that dies sooner than this after its start is restarted after a growing pause. */
const STABLE_AFTER_MS = 10_000;
const MAX_RESTART_DELAY_MS = 10_000;

/**
 * The primary of a process per core behind one port (node:cluster: the primary accepts and hands
 * connections to the workers in turn). It restarts a worker that dies, serves one /metrics view,
 * and on SIGTERM/SIGINT passes the signal on, waits for every worker's graceful stop (each drains
 * its requests and flushes its billing events) and exits. It holds no request state of its own.
 */
export async function superviseProxy(options: SupervisorOptions): Promise<void> {
  const { logger } = options;
  let stopping = false;
  let exitWhenDone = (): void => {};
  let restartDelay = 0;
  const startedAt = new Map<Worker, number>();
  serveMetricsViewToWorkers();

  const fork = (): void => {
    const worker = cluster.fork();
    startedAt.set(worker, Date.now());
  };

  let announced = false;
  cluster.on("listening", (_worker, address) => {
    if (announced) return;
    announced = true;
    const host = address.address && address.address !== "::" && address.address !== "0.0.0.0" ? address.address : "127.0.0.1";
    logger.info({ url: `http://${host}:${address.port}`, processes: options.processes }, "proxy listening");
  });

  cluster.on("exit", (worker, code, signal) => {
    const lived = Date.now() - (startedAt.get(worker) ?? Date.now());
    startedAt.delete(worker);
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) exitWhenDone();
      return;
    }
    restartDelay = lived >= STABLE_AFTER_MS ? 0 : Math.min(MAX_RESTART_DELAY_MS, Math.max(100, restartDelay * 2));
    logger.error({ pid: worker.process.pid, code, signal, restartInMs: restartDelay }, "proxy worker died; restarting it");
    setTimeout(() => {
      if (!stopping) fork();
    }, restartDelay).unref();
  });

  const metricsHttp: Listening = await listenMetrics((_request, response) => {
    clusterMetricsText().then(
      (text) => {
        response.writeHead(200, { "content-type": "text/plain; version=0.0.4; charset=utf-8" });
        response.end(text);
      },
      (error: unknown) => {
        response.writeHead(500, { "content-type": "text/plain" });
        response.end(String(error));
      },
    );
  }, options.metricsPort, options.metricsHost);
  logger.info({ url: `${metricsHttp.url}/metrics` }, "proxy metrics listening");

  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal, workers: Object.keys(cluster.workers ?? {}).length }, "shutting down the proxy workers");
    const done = new Promise<void>((resolve) => {
      exitWhenDone = resolve;
    });
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill("SIGTERM");
    if (Object.keys(cluster.workers ?? {}).length === 0) exitWhenDone();
    const deadline = setTimeout(() => {
      logger.error("proxy workers did not stop in time; killing them");
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill("SIGKILL");
    }, options.shutdownDeadlineMs + 5_000);
    deadline.unref();
    void done.then(async () => {
      clearTimeout(deadline);
      await metricsHttp.close(1_000);
      logger.info("proxy stopped");
      process.exit(0);
    });
  };
  process.once("SIGTERM", () => stop("SIGTERM"));
  process.once("SIGINT", () => stop("SIGINT"));

  for (let index = 0; index < options.processes; index += 1) fork();
}
