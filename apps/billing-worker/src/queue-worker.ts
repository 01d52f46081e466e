import { Worker, type Job } from "bullmq";
import { BILLING_QUEUE } from "@gateway/contracts";
import { createBillingJobHandler, type BillingJobResult } from "./billing-job.ts";
import type { BillingWorkerServices } from "./services.ts";

/**
 * The BullMQ consumer of the billing queue; job data stays `unknown` until the handler validates
 * it. Attempts and backoff come from each job (set by the producer); failed jobs are never
 * removed. A job whose worker dies mid-way keeps its lock until `WORKER_LOCK_DURATION_MS`, then any
 * worker's stalled check puts it back to wait: it is processed again, which the ledger makes a
 * no-op if the first run had committed.
 */
export function createQueueWorker(services: BillingWorkerServices): Worker<unknown, BillingJobResult> {
  const { config, logger } = services;
  const handle = createBillingJobHandler({ prisma: services.db.prisma, prices: services.prices, logger });
  const worker = new Worker<unknown, BillingJobResult>(BILLING_QUEUE, (job) => handle(job), {
    connection: services.redis,
    prefix: services.queuePrefix,
    concurrency: config.WORKER_CONCURRENCY,
    lockDuration: config.WORKER_LOCK_DURATION_MS,
    stalledInterval: config.WORKER_STALLED_INTERVAL_MS,
    maxStalledCount: config.WORKER_MAX_STALLED_COUNT,
    // No removeOnFail: the default keeps failed jobs, and the producer's jobs say so too.
  });
  worker.on("failed", (job: Job<unknown> | undefined, error: Error) => {
    const final = !job || Boolean(job.finishedOn);
    const fields = { jobId: job?.id, attempt: job?.attemptsMade, err: error.message };
    if (final) logger.error(fields, "billing job failed for good; kept in the failed set");
    else logger.warn(fields, "billing job failed; will retry");
  });
  worker.on("stalled", (jobId: string) => logger.warn({ jobId }, "billing job stalled (its worker died?); requeued"));
  worker.on("error", (error: Error) => logger.warn({ err: error.message }, "billing worker error"));
  return worker;
}
