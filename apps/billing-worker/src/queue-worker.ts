import { Worker, type Job, type JobJson } from "bullmq";
import { BILLING_JOB, BILLING_JOB_OPTIONS, BILLING_QUEUE } from "@gateway/contracts";
import { createBillingJobHandler, type BillingJobResult } from "./billing-job.ts";
import { LedgerBatcher } from "./ledger-batcher.ts";
import { permanentDatabaseError, recordUsageBatch } from "./record-usage.ts";
import type { BillingWorkerServices } from "./services.ts";


/** Most jobs fetched from the queue and not yet started (see BillingQueueWorker). */
const MAX_FETCHED_AHEAD = 32;

/**
 * BullMQ's Worker, fetching fewer jobs ahead. To fill its `concurrency` slots BullMQ fetches jobs
 * one after another and starts none of them until a fetch comes back empty or the slots are full:
 * with hundreds of slots (room for whole batches) and a steady stream of jobs, fetched jobs would
 * wait unstarted, and their locks unrenewed, for as long as the stream outpaces the fetches. Here a
 * fetch answers "none" at once while MAX_FETCHED_AHEAD jobs wait to start, so the loop starts them
 * first; and a fetched job's lock is renewed from the moment it is fetched.
 */
class BillingQueueWorker extends Worker<unknown, BillingJobResult> {
  /** Jobs fetched that the processor has not started yet. */
  private fetchedAhead = 0;

  protected override async moveToActive(token: string, name?: string): Promise<Job<unknown, BillingJobResult>> {
    // BullMQ reads an empty answer as "none right now" (undefined is what it returns for an empty queue).
    if (this.fetchedAhead >= MAX_FETCHED_AHEAD) return undefined as unknown as Job<unknown, BillingJobResult>;
    return super.moveToActive(token, name);
  }

  protected override async nextJobFromJobData(jobData?: JobJson, jobId?: string, token?: string): Promise<Job<unknown, BillingJobResult>> {
    const job = await super.nextJobFromJobData(jobData, jobId, token);
    if (job) {
      this.fetchedAhead += 1;
      if (job.id && token) this.lockManager.trackJob(job.id, token, job.processedOn ?? Date.now());
    }
    return job;
  }

  override processJob(job: Job<unknown, BillingJobResult>, token: string, fetchNextCallback?: () => boolean) {
    this.fetchedAhead = Math.max(0, this.fetchedAhead - 1);
    return super.processJob(job, token, fetchNextCallback);
  }
}

/**
 * The BullMQ consumer of the billing queue; job data stays `unknown` until the handler validates
 * it. Attempts and backoff come from each job (set by the producer); failed jobs are never
 * removed. The worker holds up to `WORKER_CONCURRENCY` jobs at once; their events are written to
 * the ledger in batches of up to `WORKER_BATCH_SIZE` (LedgerBatcher), one statement each, and each
 * job completes (or fails) on its own once its batch has committed. A job whose worker dies
 * mid-way keeps its lock until `WORKER_LOCK_DURATION_MS`, then any worker's stalled check puts it
 * back to wait: it is processed again, which the ledger makes a no-op if the first run had
 * committed.
 */
export function createQueueWorker(services: BillingWorkerServices, batcher: LedgerBatcher = createLedgerBatcher(services)): Worker<unknown, BillingJobResult> {
  const { config, logger } = services;
  const handle = createBillingJobHandler({
    prisma: services.db.prisma,
    prices: services.prices,
    logger,
    record: (event, costNano) => batcher.record(event, costNano),
    recordMany: (entries) => batcher.recordMany(entries),
    // A batch's bad event becomes a job of its own (the producer's options), which fails and is kept.
    splitOut: async (events) => {
      await services.queue.addBulk(events.map(({ jobId, data }) => ({ name: BILLING_JOB.single, data, opts: { ...BILLING_JOB_OPTIONS, jobId } })));
    },
  });
  const worker = new BillingQueueWorker(BILLING_QUEUE, (job) => handle(job), {
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

/** The batcher of a worker's ledger writes, as configured (WORKER_BATCH_SIZE, WORKER_BATCH_WAIT_MS, WORKER_CONCURRENCY). */
export function createLedgerBatcher(services: BillingWorkerServices): LedgerBatcher {
  const { config, logger } = services;
  return new LedgerBatcher({
    write: (entries) => recordUsageBatch(services.db, entries),
    isPermanent: (error) => permanentDatabaseError(error) !== undefined,
    maxSize: config.WORKER_BATCH_SIZE,
    maxWaitMs: config.WORKER_BATCH_WAIT_MS,
    capacity: config.WORKER_CONCURRENCY,
    logger,
  });
}
