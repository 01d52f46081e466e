// Batch jobs, as the proxy queues them: one job holds many events. Good events are recorded once,
// bad ones are split out into failing jobs of their own, a re-sent batch is one job, and a batch
// redelivered under another id changes nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BILLING_JOB, billingBatchJobId, newId, type BillingEvent } from "@gateway/contracts";
import { createDb, type Db } from "@gateway/db";
import { startBillingWorker, type RunningBillingWorker } from "./server.ts";
import { billingEvent, createTestEnvironment, jobSettled, enqueueBatches, EVENT_COST_NANO, PRODUCER_JOB_OPTIONS, seedCatalog, waitFor, type Seeded, type TestEnvironment } from "./test-fixtures.ts";
import type { BillingBatchResult } from "./billing-job.ts";

let environment: TestEnvironment;
let db: Db;
let seeded: Seeded;
let running: RunningBillingWorker;

beforeAll(async () => {
  environment = await createTestEnvironment();
  db = createDb({ url: environment.database.url, poolSize: 4 });
  seeded = await seedCatalog(db.prisma);
  running = await startBillingWorker(environment.config({ WORKER_CONCURRENCY: "8", WORKER_BATCH_SIZE: "50", WORKER_BATCH_WAIT_MS: "20" }));
});

afterAll(async () => {
  await running?.close();
  await db?.close();
  await environment?.cleanup();
});

const settled = (jobId: string) => jobSettled(environment.queue, jobId);

const addBatch = (events: unknown[], jobId = billingBatchJobId(events as BillingEvent[])) =>
  environment.queue.add(BILLING_JOB.batch, { events }, { ...PRODUCER_JOB_OPTIONS, jobId }).then(() => jobId);

const day = new Date("2026-11-22T00:00:00Z");
const aggregate = () => db.prisma.usageAggregate.findUniqueOrThrow({ where: { apiKeyId_model_day: { apiKeyId: seeded.apiKeyId, model: seeded.model, day } } });

describe("batch jobs", () => {
  it("records every event of a batch once; a bad event is split out into a failed job of its own", async () => {
    const fresh = Array.from({ length: 6 }, () => billingEvent(seeded));
    const unknownKey = billingEvent(seeded, { apiKeyId: newId("key") });
    const invalid = { requestId: "not-a-request-id", usage: {} };
    const jobId = await addBatch([fresh[0], fresh[1], invalid, fresh[2], fresh[0], unknownKey, fresh[3], fresh[4], fresh[5]]);

    const batch = await settled(jobId);
    expect(batch.state).toBe("completed");
    const result = batch.job.returnvalue as BillingBatchResult;
    // fresh[0] twice in the batch: recorded once, the second a duplicate.
    expect(result).toEqual({
      events: 9,
      recorded: 6,
      duplicate: 1,
      unpriced: 0,
      costNano: (7n * EVENT_COST_NANO).toString(),
      splitOut: [`${jobId}#2`, unknownKey.requestId],
    });

    // Each bad event is a job of its own that failed for good and is kept, with its data.
    const invalidJob = await settled(`${jobId}#2`);
    expect(invalidJob.state).toBe("failed");
    expect(invalidJob.job.name).toBe(BILLING_JOB.single);
    expect(invalidJob.job.attemptsMade).toBe(1);
    expect(invalidJob.job.data).toEqual(invalid);
    expect(invalidJob.job.failedReason).toMatch(/invalid billing event/);
    const unknownKeyJob = await settled(unknownKey.requestId);
    expect(unknownKeyJob.state).toBe("failed");
    expect(unknownKeyJob.job.data).toEqual(unknownKey);
    expect(unknownKeyJob.job.failedReason).toMatch(/its api key does not exist/);
    expect(await environment.queue.getFailedCount()).toBe(2);

    expect(await db.prisma.usageRecord.count({ where: { requestId: { in: fresh.map((event) => event.requestId) } } })).toBe(6);
    expect(await aggregate()).toMatchObject({ requests: 6, inputTokens: 6000n, costNano: 6n * EVENT_COST_NANO });
  });

  it("keeps one job for a batch re-sent under its id, and changes nothing for one redelivered under another", async () => {
    const before = await aggregate();
    const events = Array.from({ length: 5 }, () => billingEvent(seeded));
    const jobId = billingBatchJobId(events);
    // The producer re-sending after a lost reply: same events, same id.
    await addBatch(events, jobId);
    await addBatch(events, jobId);
    expect((await settled(jobId)).job.returnvalue).toMatchObject({ events: 5, recorded: 5, duplicate: 0 });
    const redelivered = await addBatch(events, `${jobId}-redelivered`);
    expect((await settled(redelivered)).job.returnvalue).toMatchObject({ events: 5, recorded: 0, duplicate: 5, costNano: (5n * EVENT_COST_NANO).toString() });

    const after = await aggregate();
    expect(after.requests - before.requests).toBe(5);
    expect(after.costNano - before.costNano).toBe(5n * EVENT_COST_NANO);
    expect(await environment.queue.getJobCountByTypes("completed")).toBeGreaterThanOrEqual(2);
  });

  it("drains many batches into an exact ledger, with per-event metrics", async () => {
    const before = await aggregate();
    const events = Array.from({ length: 400 }, () => billingEvent(seeded));
    const jobs = await enqueueBatches(environment.queue, events, 40);
    expect(jobs).toBe(10);
    await waitFor(async () => ((await aggregate()).requests - before.requests === 400 ? true : undefined), { what: "400 events in the ledger" });
    expect(await db.prisma.usageRecord.count({ where: { requestId: { in: events.map((event) => event.requestId) } } })).toBe(400);
    expect((await aggregate()).costNano - before.costNano).toBe(400n * EVENT_COST_NANO);

    const metrics = await (await fetch(`${running.url}/metrics`)).text();
    // 6 + 5 + 400 recorded; 1 + 5 duplicates; the two split-out jobs failed once each.
    expect(metrics).toMatch(/billing_events_total\{outcome="recorded",app="billing-worker"\} 411\n/);
    expect(metrics).toMatch(/billing_events_total\{outcome="duplicate",app="billing-worker"\} 6\n/);
    expect(metrics).toMatch(/billing_jobs_total\{outcome="failed",app="billing-worker"\} 2\n/);
    expect(metrics).toMatch(/billing_lag_seconds_count\{app="billing-worker"\} 411\n/);
  });
});
