// SIGTERM to a billing worker process while jobs are running (issue 8): it takes no new job, lets
// the active ones finish and commit, and exits 0; a later worker does the rest, each event once.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "@gateway/db";
import { billingEvent, createTestEnvironment, PRODUCER_JOB_OPTIONS, seedCatalog, waitFor, type Seeded, type TestEnvironment } from "./test-fixtures.ts";

const MAIN = fileURLToPath(new URL("./main.ts", import.meta.url));
const CONCURRENCY = 16;

let environment: TestEnvironment;
let db: Db;
let seeded: Seeded;
const children: ChildProcess[] = [];

beforeAll(async () => {
  environment = await createTestEnvironment();
  db = createDb({ url: environment.database.url, poolSize: 2 });
  seeded = await seedCatalog(db.prisma);
});

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  await db?.close();
  await environment?.cleanup();
});

/** `node src/main.ts` on the test database and prefix; its log lines are kept for the test to read. */
function startWorkerProcess(): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH, ...environment.env, LOG_LEVEL: "info", WORKER_CONCURRENCY: String(CONCURRENCY) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const keep = (chunk: Buffer) => (output += chunk.toString());
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  children.push(child);
  return { child, output: () => output };
}

const enqueue = (count: number) => {
  const events = Array.from({ length: count }, () => billingEvent(seeded));
  return environment.queue.addBulk(events.map((event) => ({ name: "usage", data: event, opts: { ...PRODUCER_JOB_OPTIONS, jobId: event.requestId } })));
};

describe("SIGTERM to a billing worker with jobs running", () => {
  it("finishes the active jobs, takes no new ones, exits 0; the next worker does the rest exactly once", async () => {
    await enqueue(1);
    const first = startWorkerProcess();
    await waitFor(async () => (await db.prisma.usageRecord.count()) === 1, { what: "the first event to be recorded" });

    // Hold the day's aggregate row: every job's ledger statement now waits on it, so the worker's
    // jobs stay active for as long as the test decides.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const lockTaken = new Promise<void>((resolve) => (locked = resolve));
    const holder = db.prisma.$transaction(async (transaction) => {
      await transaction.$queryRaw`SELECT 1 FROM usage_aggregates FOR UPDATE`;
      locked();
      await released;
    }, { timeout: 30_000, maxWait: 10_000 });
    await lockTaken;

    await enqueue(100);
    await waitFor(async () => (await environment.queue.getActiveCount()) === CONCURRENCY, { what: "the worker to be busy with a full set of jobs" });

    const exited = once(first.child, "exit");
    first.child.kill("SIGTERM");
    await waitFor(async () => first.output().includes('"msg":"shutting down"'), { what: "the worker to start shutting down" });
    // Shutting down, yet waiting for its jobs: still alive, every one of them still active.
    expect(first.child.exitCode).toBeNull();
    expect(await environment.queue.getActiveCount()).toBe(CONCURRENCY);

    release();
    await holder;
    expect(await exited).toEqual([0, null]);

    // The active jobs committed and were acknowledged; nothing was abandoned mid-way or taken after SIGTERM.
    const afterFirst = await environment.queue.getJobCounts("waiting", "active", "delayed", "completed", "failed");
    expect(afterFirst).toMatchObject({ active: 0, delayed: 0, failed: 0, completed: 1 + CONCURRENCY, waiting: 100 - CONCURRENCY });
    expect(await db.prisma.usageRecord.count()).toBe(1 + CONCURRENCY);

    const second = startWorkerProcess();
    await waitFor(async () => (await environment.queue.getCompletedCount()) === 101, { timeoutMs: 20_000, what: "the second worker to drain the queue" });
    expect(await environment.queue.getFailedCount()).toBe(0);
    expect(await db.prisma.usageRecord.count()).toBe(101);
    const aggregate = await db.prisma.usageAggregate.findUniqueOrThrow({
      where: { apiKeyId_model_day: { apiKeyId: seeded.apiKeyId, model: seeded.model, day: new Date("2026-11-22T00:00:00Z") } },
    });
    expect(aggregate).toMatchObject({ requests: 101, inputTokens: 101n * 1000n, costNano: 101n * 535_938n });

    const stopped = once(second.child, "exit");
    second.child.kill("SIGTERM");
    expect(await stopped).toEqual([0, null]);
  });
});
