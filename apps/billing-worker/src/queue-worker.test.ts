import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "@gateway/db";
import { startBillingWorker, type RunningBillingWorker } from "./server.ts";
import { billingEvent, createTestEnvironment, jobSettled, PRICES, PRODUCER_JOB_OPTIONS, seedCatalog, type Seeded, type TestEnvironment } from "./test-fixtures.ts";

let environment: TestEnvironment;
let db: Db;
let seeded: Seeded;
let running: RunningBillingWorker;

beforeAll(async () => {
  environment = await createTestEnvironment();
  db = createDb({ url: environment.database.url, poolSize: 4 });
  seeded = await seedCatalog(db.prisma);
  running = await startBillingWorker(environment.config({ WORKER_CONCURRENCY: "4" }));
});

afterAll(async () => {
  await running?.close();
  await db?.close();
  await environment?.cleanup();
});

const settled = (jobId: string) => jobSettled(environment.queue, jobId);

async function ledger(requestId: string) {
  const records = await db.prisma.usageRecord.findMany({ where: { requestId } });
  const aggregate = await db.prisma.usageAggregate.findFirst({ where: { apiKeyId: seeded.apiKeyId, model: records[0]?.model ?? "" } });
  return { records, aggregate };
}

describe("billing worker on the queue", () => {
  it("turns a queued event into a usage record and an aggregate with the exact cost", async () => {
    const event = billingEvent(seeded, { model: seeded.plainModel });
    await environment.queue.add("usage", event, { ...PRODUCER_JOB_OPTIONS, jobId: event.requestId });

    const { state, job } = await settled(event.requestId);
    expect(state).toBe("completed");
    expect(job.returnvalue).toEqual({ requestId: event.requestId, outcome: "recorded", costNano: "529688", priced: true });
    const { records, aggregate } = await ledger(event.requestId);
    expect(records).toEqual([expect.objectContaining({ costNano: 529_688n, inputTokens: 1000n, status: "ok" })]);
    expect(aggregate).toMatchObject({ requests: 1, inputTokens: 1000n, outputTokens: 500n, cachedInputTokens: 400n, costNano: 529_688n });
  });

  it("counts an event once whether added twice under its id or redelivered under another id", async () => {
    const event = billingEvent(seeded);
    // The producer re-sending a batch: same job id, BullMQ keeps the one job.
    await environment.queue.addBulk([
      { name: "usage", data: event, opts: { ...PRODUCER_JOB_OPTIONS, jobId: event.requestId } },
      { name: "usage", data: event, opts: { ...PRODUCER_JOB_OPTIONS, jobId: event.requestId } },
    ]);
    await environment.queue.add("usage", event, { ...PRODUCER_JOB_OPTIONS, jobId: event.requestId });
    expect((await settled(event.requestId)).job.returnvalue).toMatchObject({ outcome: "recorded" });

    // A redelivery after the first completed, under a job id the queue has never seen.
    const redeliveredId = `${event.requestId}-redelivered`;
    await environment.queue.add("usage", event, { ...PRODUCER_JOB_OPTIONS, jobId: redeliveredId });
    const redelivered = await settled(redeliveredId);
    expect(redelivered.state).toBe("completed");
    expect(redelivered.job.returnvalue).toMatchObject({ outcome: "duplicate" });

    const { records, aggregate } = await ledger(event.requestId);
    expect(records).toHaveLength(1);
    expect(aggregate).toMatchObject({ requests: 1, inputTokens: 1000n, costNano: 535_938n });
  });

  it("bills a usage of 2^40 tokens exactly: BIGINT ledger columns and per-day sums, cost in whole nano-USD", async () => {
    const huge = 2 ** 40;
    // A day of its own, so its per-day row holds this event alone.
    const finishedAt = Date.UTC(2026, 10, 30, 12);
    const usage = { inputTokens: huge, outputTokens: huge, cachedInputTokens: 0, cacheWriteTokens: 0, reasoningTokens: huge, images: 0 };
    const event = billingEvent(seeded, { model: seeded.plainModel, usage, startedAt: finishedAt - 1000, finishedAt });
    await environment.queue.add("usage", event, { ...PRODUCER_JOB_OPTIONS, jobId: event.requestId });
    expect((await settled(event.requestId)).state).toBe("completed");
    // List prices x 1.25 (12_500 bps) in 1/10^4 pico, rounded half up once to nano.
    const expectedNano = (2n ** 40n * (PRICES.model.inputPrice + PRICES.model.outputPrice) * BigInt(PRICES.multiplierBps) + 5_000_000n) / 10_000_000n;
    const records = await db.prisma.usageRecord.findMany({ where: { requestId: event.requestId } });
    const aggregate = await db.prisma.usageAggregate.findUnique({ where: { apiKeyId_model_day: { apiKeyId: seeded.apiKeyId, model: seeded.plainModel, day: new Date("2026-11-30") } } });
    expect(records).toEqual([expect.objectContaining({ inputTokens: 2n ** 40n, outputTokens: 2n ** 40n, reasoningTokens: 2n ** 40n, costNano: expectedNano })]);
    expect(aggregate).toMatchObject({ inputTokens: 2n ** 40n, outputTokens: 2n ** 40n, reasoningTokens: 2n ** 40n, costNano: expectedNano });
  });

  it("fails an invalid payload for good, keeps it, and goes on with the next job", async () => {
    await environment.queue.add("usage", { requestId: "not-a-request-id", usage: {} }, { ...PRODUCER_JOB_OPTIONS, jobId: "bad-payload" });
    const bad = await settled("bad-payload");
    expect(bad.state).toBe("failed");
    // Unrecoverable: one attempt, not the producer's 20.
    expect(bad.job.attemptsMade).toBe(1);
    expect(bad.job.failedReason).toMatch(/invalid billing event in job bad-payload: requestId/);

    const event = billingEvent(seeded, { model: seeded.plainModel });
    await environment.queue.add("usage", event, { ...PRODUCER_JOB_OPTIONS, jobId: event.requestId });
    expect((await settled(event.requestId)).state).toBe("completed");

    // Still there, visible to an operator.
    expect(await environment.queue.getFailedCount()).toBe(1);
    expect((await environment.queue.getJob("bad-payload"))?.data).toEqual({ requestId: "not-a-request-id", usage: {} });
    expect(running.worker.isRunning()).toBe(true);
  });

  it("answers /healthz, and /readyz with the queue's counts", async () => {
    const health = await fetch(`${running.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });

    const ready = await fetch(`${running.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({
      status: "ok",
      checks: { database: true, redis: true, consuming: true },
      // the invalid job of the test above
      queue: { waiting: 0, active: 0, delayed: 0, failed: 1 },
    });

    const metrics = await (await fetch(`${running.url}/metrics`)).text();
    expect(metrics).toMatch(/billing_queue_failed\{app="billing-worker"\} 1/);
    expect(metrics).toMatch(/billing_events_total\{outcome="recorded",app="billing-worker"\} [1-9]/);
    expect(metrics).toMatch(/billing_events_total\{outcome="duplicate",app="billing-worker"\} [1-9]/);
    expect(metrics).toMatch(/billing_jobs_total\{outcome="failed",app="billing-worker"\} 1\n/);
    expect(metrics).toMatch(/billing_lag_seconds_count\{app="billing-worker"\} [1-9]/);

    const missing = await fetch(`${running.url}/nope`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ type: "error", error: { code: "route_not_found" } });
  });
});
