import type { Worker } from "bullmq";
import { listen, type Listening } from "@gateway/http";
import type { BillingWorkerConfig } from "./config.ts";
import { createHealthHandler } from "./health-routes.ts";
import { createLedgerBatcher, createQueueWorker } from "./queue-worker.ts";
import { createWorkerMetrics } from "./worker-metrics.ts";
import { createBillingWorkerServices, type BillingWorkerServices } from "./services.ts";
import { OrphanSweeper } from "./orphan-sweeper.ts";
import { watchCrossings } from "./quota-crossings.ts";
import { startResponsesStoreWorker } from "./responses-store-worker.ts";

export interface RunningBillingWorker {
  /** Base URL of /healthz and /readyz. */
  url: string;
  port: number;
  http: Listening;
  worker: Worker;
  services: BillingWorkerServices;
  /** Bills the open requests of dead proxy processes from their in-flight journals. */
  sweeper: OrphanSweeper;
  close(): Promise<void>;
}

/** Boots the billing worker: consumes the billing queue and serves its health endpoints. */
export async function startBillingWorker(config: BillingWorkerConfig, logger?: BillingWorkerServices["logger"]): Promise<RunningBillingWorker> {
  const services = createBillingWorkerServices(config, logger);
  const batcher = createLedgerBatcher(services);
  // Webhook events of keys whose spend crossed 80 % / 100 % of their quota or their budget.
  batcher.onWritten(watchCrossings(services.db.prisma, services.logger));
  const worker = createQueueWorker(services, batcher);
  const state = { shuttingDown: false };
  const sweeper = new OrphanSweeper({
    redis: services.redis,
    prefix: config.REDIS_PREFIX,
    queue: services.queue,
    prices: services.prices,
    logger: services.logger,
    intervalMs: config.ORPHAN_SWEEP_INTERVAL_MS,
    claimMs: config.ORPHAN_CLAIM_MS,
  });
  let http: Listening;
  try {
    await worker.waitUntilReady();
    http = await listen(createHealthHandler(services, worker, state, createWorkerMetrics(services, worker, batcher, sweeper)), config.PORT, config.HOST);
  } catch (error) {
    await worker.close(true).catch(() => {});
    await services.close();
    throw error;
  }
  sweeper.start();
  // Stored Responses state to Postgres, and its retention sweep (contract section 18).
  const responsesStore = startResponsesStoreWorker(services);
  let closing: Promise<void> | null = null;
  return {
    url: http.url,
    port: http.port,
    http,
    worker,
    services,
    sweeper,
    close() {
      closing ??= (async () => {
        state.shuttingDown = true;
        await sweeper.stop();
        await responsesStore.close();
        await drainWorker(worker, services, config.SHUTDOWN_DEADLINE_MS);
        await http.close(config.SHUTDOWN_DEADLINE_MS);
        await services.close();
      })();
      return closing;
    },
  };
}

/**
 * Stops taking jobs and lets active ones finish up to the deadline. A job still running after it is
 * abandoned: its lock expires and another worker redoes it, a no-op if it had committed.
 */
async function drainWorker(worker: Worker, services: BillingWorkerServices, deadlineMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), deadlineMs);
  });
  const result = await Promise.race([worker.close().then(() => "closed" as const), deadline]).finally(() => clearTimeout(timer));
  if (result === "timeout") services.logger.warn({ deadlineMs }, "billing jobs still running at the shutdown deadline; another worker will redo them");
}
