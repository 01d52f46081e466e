// The worker writes the jobs it holds in one batch: duplicates are counted once, a poison job fails
// alone while the rest of its batch commits, and each job still completes with its own outcome.
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Job } from "bullmq";
import { createDb, type Db } from "@gateway/db";
import { createLogger } from "@gateway/logger";
import { newId } from "@gateway/contracts";
import { startBillingWorker, type RunningBillingWorker } from "./server.ts";
import { billingEvent, createTestEnvironment, EVENT_COST_NANO, PRODUCER_JOB_OPTIONS, seedCatalog, waitFor, type Seeded, type TestEnvironment } from "./test-fixtures.ts";

let environment: TestEnvironment;
let db: Db;
let seeded: Seeded;
let running: RunningBillingWorker;
const logLines: string[] = [];

beforeAll(async () => {
  environment = await createTestEnvironment();
  db = createDb({ url: environment.database.url, poolSize: 4 });
  seeded = await seedCatalog(db.prisma);
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(...chunk.toString().split("\n").filter(Boolean));
      done();
    },
  });
  // A long wait, so that every job of one addBulk lands in the same batch.
  const config = environment.config({ WORKER_CONCURRENCY: "50", WORKER_BATCH_SIZE: "50", WORKER_BATCH_WAIT_MS: "300" });
  running = await startBillingWorker(config, createLogger({ name: "billing-worker", level: "info", destination }));
});

afterAll(async () => {
  await running?.close();
  await db?.close();
  await environment?.cleanup();
});

async function settled(jobIds: string[]): Promise<Map<string, { state: string; job: Job }>> {
  return waitFor(async () => {
    const found = new Map<string, { state: string; job: Job }>();
    for (const jobId of jobIds) {
      const state = await environment.queue.getJobState(jobId);
      if (state !== "completed" && state !== "failed") return undefined;
      const job = await environment.queue.getJob(jobId);
      if (!job) return undefined;
      found.set(jobId, { state, job });
    }
    return found;
  }, { what: "the jobs to settle" });
}

const add = (jobs: { jobId: string; data: unknown }[]) =>
  environment.queue.addBulk(jobs.map(({ jobId, data }) => ({ name: "usage", data, opts: { ...PRODUCER_JOB_OPTIONS, jobId } })));

describe("billing worker batches", () => {
  it("counts each request once across duplicates in the batch and in the ledger; a poison job fails alone", async () => {
    const already = billingEvent(seeded);
    await add([{ jobId: already.requestId, data: already }]);
    expect((await settled([already.requestId])).get(already.requestId)!.job.returnvalue).toMatchObject({ outcome: "recorded" });

    const fresh = Array.from({ length: 8 }, () => billingEvent(seeded));
    const unknownKey = billingEvent(seeded, { apiKeyId: newId("key") });
    const jobs = [
      ...fresh.slice(0, 4).map((event) => ({ jobId: event.requestId, data: event as unknown })),
      // The same event redelivered under other job ids: within this batch, and of a request already recorded.
      { jobId: `${fresh[0]!.requestId}-again`, data: fresh[0] },
      { jobId: `${already.requestId}-again`, data: already },
      // Poison: fails validation, and fails in Postgres (its api key does not exist).
      { jobId: "invalid-payload", data: { requestId: "nope" } },
      { jobId: "unknown-key", data: unknownKey },
      ...fresh.slice(4).map((event) => ({ jobId: event.requestId, data: event as unknown })),
    ];
    await add(jobs);
    const results = await settled(jobs.map((job) => job.jobId));

    const outcome = (jobId: string) => results.get(jobId)!.job.returnvalue as { outcome: string } | null;
    for (const event of fresh) {
      expect(results.get(event.requestId)!.state).toBe("completed");
      expect(outcome(event.requestId)).toMatchObject({ outcome: "recorded", costNano: EVENT_COST_NANO.toString() });
    }
    expect(outcome(`${fresh[0]!.requestId}-again`)).toMatchObject({ outcome: "duplicate" });
    expect(outcome(`${already.requestId}-again`)).toMatchObject({ outcome: "duplicate" });

    const invalid = results.get("invalid-payload")!;
    expect(invalid.state).toBe("failed");
    expect(invalid.job.attemptsMade).toBe(1);
    const poisoned = results.get("unknown-key")!;
    expect(poisoned.state).toBe("failed");
    expect(poisoned.job.attemptsMade).toBe(1);
    expect(poisoned.job.failedReason).toMatch(/its api key does not exist/);
    // The unknown key failed the batch's statement, which was then written entry by entry.
    expect(logLines.some((line) => line.includes("a ledger batch failed on one entry"))).toBe(true);

    // 1 + 8 requests, each once, in the ledger and in every rollup.
    expect(await db.prisma.usageRecord.count()).toBe(9);
    const day = new Date("2026-11-22T00:00:00Z");
    const aggregate = await db.prisma.usageAggregate.findUniqueOrThrow({ where: { apiKeyId_model_day: { apiKeyId: seeded.apiKeyId, model: seeded.model, day } } });
    expect(aggregate).toMatchObject({ requests: 9, inputTokens: 9000n, costNano: 9n * EVENT_COST_NANO });
    const keyDay = await db.prisma.usageKeyDay.findUniqueOrThrow({ where: { apiKeyId_day: { apiKeyId: seeded.apiKeyId, day } } });
    expect(keyDay).toMatchObject({ requests: 9, costNano: 9n * EVENT_COST_NANO });
    const vendorDays = await db.prisma.usageVendorDay.aggregate({ _sum: { requests: true, costNano: true }, where: { vendorId: seeded.vendorId, day } });
    expect(vendorDays._sum).toEqual({ requests: 9, costNano: 9n * EVENT_COST_NANO });

    // Events per event, jobs per job, neither per ledger statement.
    const metrics = await (await fetch(`${running.url}/metrics`)).text();
    expect(metrics).toMatch(/billing_events_total\{outcome="recorded",app="billing-worker"\} 9\n/);
    expect(metrics).toMatch(/billing_events_total\{outcome="duplicate",app="billing-worker"\} 2\n/);
    expect(metrics).toMatch(/billing_jobs_total\{outcome="completed",app="billing-worker"\} 11\n/);
    expect(metrics).toMatch(/billing_jobs_total\{outcome="failed",app="billing-worker"\} 2\n/);
    expect(metrics).toMatch(/billing_lag_seconds_count\{app="billing-worker"\} 9\n/);
  });
});
