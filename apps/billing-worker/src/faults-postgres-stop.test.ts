// PostgreSQL stopped while the worker drains the queue (issue 8): jobs retry through the outage,
// every one completes once it is back, and each event is counted exactly once. The worker runs on
// a PostgreSQL cluster of this test's own, so stopping it disturbs no other test.
import { randomUUID } from "node:crypto";
import { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BILLING_QUEUE } from "@gateway/contracts";
import { createDb, type Db } from "@gateway/db";
import { createLogger } from "@gateway/logger";
import { connectRedis, redisKeys } from "@gateway/redis-store";
import { resolveTestServices, startPrivatePostgres, type PrivatePostgres } from "@gateway/testing";
import { loadBillingWorkerConfig } from "./config.ts";
import { startBillingWorker, type RunningBillingWorker } from "./server.ts";
import { billingEvent, enqueueBatches, seedCatalog, waitFor, type Seeded } from "./test-fixtures.ts";

const silent = createLogger({ name: "test", level: "silent" });
const prefix = `test-${randomUUID()}`;
let postgres: PrivatePostgres;
let db: Db;
let seeded: Seeded;
let queueConnection: ReturnType<typeof connectRedis>;
let queue: Queue;
let worker: RunningBillingWorker;

beforeAll(async () => {
  const [services, started] = await Promise.all([resolveTestServices(), startPrivatePostgres()]);
  postgres = started;
  db = createDb({ url: postgres.url, poolSize: 2 });
  seeded = await seedCatalog(db.prisma);
  queueConnection = connectRedis(services.redisUrl, { name: "faults-postgres-test" });
  queue = new Queue(BILLING_QUEUE, { connection: queueConnection, prefix: redisKeys(prefix).queuePrefix });
  worker = await startBillingWorker(
    loadBillingWorkerConfig({ DATABASE_URL: postgres.url, DB_POOL_SIZE: "8", REDIS_URL: services.redisUrl, REDIS_PREFIX: prefix, PORT: "0", WORKER_CONCURRENCY: "16" }),
    silent,
  );
});

afterAll(async () => {
  await worker?.close();
  await queue?.obliterate({ force: true }).catch(() => undefined);
  await queue?.close();
  queueConnection?.disconnect();
  await db?.close();
  await postgres?.destroy();
});

/** Events queued as the proxy queues them: batch jobs of PER_JOB events. */
const PER_JOB = 5;
const enqueue = (count: number) => enqueueBatches(queue, Array.from({ length: count }, () => billingEvent(seeded)), PER_JOB);

const readiness = async () => {
  const response = await fetch(`${worker.url}/readyz`);
  return (await response.json()) as { status: string; checks: { database: boolean } };
};

describe("PostgreSQL stopped while the billing worker runs", () => {
  it("retries through the outage: every job completes, each event counted once, none failed", async () => {
    let failedAttempts = 0;
    worker.worker.on("failed", () => (failedAttempts += 1));

    await enqueue(300);
    await waitFor(async () => (await db.prisma.usageRecord.count()) >= 30, { what: "the worker to record 30 events" });

    // Stopped mid-run: sessions are cut while jobs are being written.
    await postgres.stop();
    expect(await queue.getCompletedCount()).toBeLessThan(300 / PER_JOB);
    await enqueue(200);
    await waitFor(async () => failedAttempts >= 20, { what: "jobs to fail against the stopped database" });
    expect((await readiness()).checks.database).toBe(false);

    await postgres.restart();
    const drained = await waitFor(async () => {
      const now = await queue.getJobCounts("waiting", "active", "delayed", "completed", "failed", "prioritized");
      const unfinished = (now.waiting ?? 0) + (now.active ?? 0) + (now.delayed ?? 0) + (now.prioritized ?? 0);
      return now.completed === 500 / PER_JOB && unfinished === 0 ? now : undefined;
    }, { timeoutMs: 30_000, what: "every job to complete after the restart" });

    expect(drained.failed).toBe(0);
    expect(await db.prisma.usageRecord.count()).toBe(500);
    const aggregate = await db.prisma.usageAggregate.findUniqueOrThrow({
      where: { apiKeyId_model_day: { apiKeyId: seeded.apiKeyId, model: seeded.model, day: new Date("2026-11-22T00:00:00Z") } },
    });
    expect(aggregate).toMatchObject({ requests: 500, inputTokens: 500n * 1000n, outputTokens: 500n * 500n, costNano: 500n * 535_938n });
    expect((await readiness()).status).toBe("ok");
  });
});
