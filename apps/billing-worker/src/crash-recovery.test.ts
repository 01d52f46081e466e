// A worker process SIGKILLed mid-run, then a fresh one: every event is counted exactly once. The
// events are queued as the proxy queues them, in batch jobs.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "@gateway/db";
import { billingEvent, createTestEnvironment, enqueueBatches, seedCatalog, waitFor, type Seeded, type TestEnvironment } from "./test-fixtures.ts";

const MAIN = fileURLToPath(new URL("./main.ts", import.meta.url));
const EVENTS = 200;
/** Events per batch job: 50 jobs, more than the worker's 16 slots, so some wait when it is killed. */
const PER_JOB = 4;
const JOBS = EVENTS / PER_JOB;

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

/** `node src/main.ts` on the test database and prefix, with short locks so a dead worker's jobs come back fast. */
function startWorkerProcess(): ChildProcess {
  const child = spawn(process.execPath, [MAIN], {
    env: {
      PATH: process.env.PATH,
      ...environment.env,
      LOG_LEVEL: "warn",
      WORKER_CONCURRENCY: "16",
      WORKER_LOCK_DURATION_MS: "2000",
      WORKER_STALLED_INTERVAL_MS: "500",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  child.on("exit", (code, signal) => {
    if (code !== 0 && signal !== "SIGKILL") process.stderr.write(`billing worker exited ${code ?? signal}:\n${output}\n`);
  });
  children.push(child);
  return child;
}

const recordCount = () => db.prisma.usageRecord.count();

describe("billing worker killed mid-run", () => {
  it("counts every one of 200 events exactly once after a SIGKILL and a restart", async () => {
    const events = Array.from({ length: EVENTS }, () => billingEvent(seeded));
    expect(await enqueueBatches(environment.queue, events, PER_JOB)).toBe(JOBS);

    const first = startWorkerProcess();
    const exited = once(first, "exit");
    const recordedAtKill = await waitFor(async () => {
      const count = await recordCount();
      return count >= 20 ? count : undefined;
    }, { what: "the first worker to record 20 events" });
    first.kill("SIGKILL");
    await exited;

    // The kill landed mid-run: jobs were left waiting, and jobs the dead worker had taken are still
    // active under its locks (some already committed to Postgres, never acknowledged).
    const left = await environment.queue.getJobCounts("waiting", "active");
    expect(recordedAtKill).toBeLessThan(EVENTS);
    expect(left.waiting).toBeGreaterThan(0);
    expect(left.active).toBeGreaterThan(0);

    // The new worker's stalled check hands the dead worker's jobs back once their locks expire.
    const second = startWorkerProcess();
    await waitFor(async () => {
      const counts = await environment.queue.getJobCounts("waiting", "active", "delayed", "completed", "failed");
      return counts.completed === JOBS && counts.waiting === 0 && counts.active === 0 && counts.delayed === 0 ? counts : undefined;
    }, { timeoutMs: 30_000, what: "the queue to drain" });

    expect(await environment.queue.getFailedCount()).toBe(0);
    expect(await recordCount()).toBe(EVENTS);
    const aggregate = await db.prisma.usageAggregate.findUniqueOrThrow({
      where: { apiKeyId_model_day: { apiKeyId: seeded.apiKeyId, model: seeded.model, day: new Date("2026-11-22T00:00:00Z") } },
    });
    expect(aggregate).toMatchObject({ requests: EVENTS, inputTokens: BigInt(EVENTS * 1000), costNano: BigInt(EVENTS) * 535_938n });

    // A graceful stop exits 0.
    const stopped = once(second, "exit");
    second.kill("SIGTERM");
    expect(await stopped).toEqual([0, null]);
  });
});
