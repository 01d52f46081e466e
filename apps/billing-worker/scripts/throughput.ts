// Billing worker throughput (`pnpm --filter @gateway/billing-worker bench:worker`): a backlog of
// BENCH_EVENTS billing events (default 20,000) on a private Redis, drained by one worker process
// (`node src/main.ts`, as the image runs it) into a private PostgreSQL. Prints events/s and the CPU
// per event of the worker, of PostgreSQL (postmaster and every backend) and of Redis, from their
// /proc counters, then checks that the ledger and the day's aggregate are exact. The events are
// queued as the proxy queues them, BENCH_EVENTS_PER_JOB (default 50) to a `usage-batch` job;
// BENCH_EVENTS_PER_JOB=1 queues one `usage` job per event (the transport before batch jobs).
//
// The queue is paused while it is filled and resumed once the worker is up, so neither the
// producer's writes nor the worker's start-up are counted. `WORKER_*` and `DB_POOL_SIZE` in the
// environment are passed to the worker; `BENCH_WORKER_MAIN` runs another copy of the worker (to
// compare with an older version), `BENCH_WORKER_NODE_OPTIONS` gives it Node flags (`--cpu-prof`).
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { Queue } from "bullmq";
import { BILLING_QUEUE } from "@gateway/contracts";
import { createDb } from "@gateway/db";
import { connectRedis, redisKeys } from "@gateway/redis-store";
import { startPrivatePostgres, startPrivateRedis } from "@gateway/testing";
import { parseProcEntry, readCpuTicks, readTreeCpuTicks, type CpuTicks } from "../../bench/src/process-stats.ts";
import { billingEvent, enqueueBatches, EVENT_COST_NANO, PRODUCER_JOB_OPTIONS, seedCatalog } from "../src/test-fixtures.ts";

const EVENTS = Number(process.env.BENCH_EVENTS ?? 20_000);
const EVENTS_PER_JOB = Number(process.env.BENCH_EVENTS_PER_JOB ?? 50);
const WORKER_MAIN = process.env.BENCH_WORKER_MAIN ?? fileURLToPath(new URL("../src/main.ts", import.meta.url));
const PREFIX = "bench-worker";
/** Clock ticks per second of /proc's CPU counters (`getconf CLK_TCK`). */
const TICKS_PER_SECOND = 100;

const seconds = (ticks: CpuTicks) => (ticks.user + ticks.system) / TICKS_PER_SECOND;

/** The postmaster: the parent of the backend serving `db`. */
async function postmasterPid(db: ReturnType<typeof createDb>): Promise<number> {
  const [row] = await db.prisma.$queryRaw<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`;
  return parseProcEntry(row!.pid, await readFile(`/proc/${row!.pid}/stat`, "utf8")).ppid;
}

async function redisPid(redis: ReturnType<typeof connectRedis>): Promise<number> {
  const pid = Number(/^process_id:(\d+)/m.exec(await redis.info("server"))?.[1]);
  if (!Number.isInteger(pid)) throw new Error("no process_id in INFO server");
  return pid;
}

const [postgres, redis] = await Promise.all([startPrivatePostgres(), startPrivateRedis({ appendfsync: "everysec" })]);
const db = createDb({ url: postgres.url, poolSize: 2 });
const connection = connectRedis(redis.url, { name: "bench-worker" });
const queue = new Queue(BILLING_QUEUE, { connection, prefix: redisKeys(PREFIX).queuePrefix });
let worker: ReturnType<typeof spawn> | undefined;
try {
  const seeded = await seedCatalog(db.prisma);
  await queue.pause();
  for (let start = 0; start < EVENTS; start += 1000) {
    const events = Array.from({ length: Math.min(1000, EVENTS - start) }, () => billingEvent(seeded));
    if (EVENTS_PER_JOB > 1) await enqueueBatches(queue, events, EVENTS_PER_JOB);
    else await queue.addBulk(events.map((event) => ({ name: "usage", data: event, opts: { ...PRODUCER_JOB_OPTIONS, jobId: event.requestId } })));
  }

  const passed = Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith("WORKER_") || name === "DB_POOL_SIZE")) as Record<string, string>;
  worker = spawn(process.execPath, [WORKER_MAIN], {
    env: { PATH: process.env.PATH, NODE_OPTIONS: process.env.BENCH_WORKER_NODE_OPTIONS ?? "", DATABASE_URL: postgres.url, REDIS_URL: redis.url, REDIS_PREFIX: PREFIX, PORT: "0", LOG_LEVEL: "info", ...passed },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let output = "";
  await new Promise<void>((resolve, reject) => {
    worker!.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("billing worker consuming")) resolve();
    });
    worker!.once("exit", (code) => reject(new Error(`worker exited ${code}: ${output}`)));
  });
  const started = JSON.parse(output.split("\n").find((line) => line.includes("billing worker consuming"))!) as Record<string, unknown>;
  const { level: _level, time: _time, pid: _pid, hostname: _hostname, msg: _msg, url: _url, name: _name, ...settings } = started;
  await new Promise((resolve) => setTimeout(resolve, 1000));

  const pids = { worker: worker.pid!, postgres: await postmasterPid(db), redis: await redisPid(connection) };
  // The postmaster's whole tree: backends, and the reaped children's time too.
  const cpu = async () => ({
    worker: seconds(await readCpuTicks(pids.worker)),
    postgres: seconds(await readTreeCpuTicks(pids.postgres)),
    redis: seconds(await readCpuTicks(pids.redis)),
  });
  const before = { ...(await cpu()), at: performance.now() };
  await queue.resume();
  for (;;) {
    const counts = await queue.getJobCounts("waiting", "active", "delayed", "prioritized");
    if (Object.values(counts).every((count) => count === 0)) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const elapsed = (performance.now() - before.at) / 1000;
  const after = await cpu();
  const perEvent = (name: "worker" | "postgres" | "redis") => ((after[name] - before[name]) * 1e6) / EVENTS;
  const used = { worker: perEvent("worker"), postgres: perEvent("postgres"), redis: perEvent("redis") };

  // Batch sizes from the worker's /metrics (absent from workers that write one event per statement).
  const url = started.url as string;
  const metrics = await (await fetch(`${url}/metrics`)).text();
  const metric = (name: string) => Number(new RegExp(`^${name}\\{[^}]*\\} (\\S+)$`, "m").exec(metrics)?.[1] ?? Number.NaN);
  const batches = metric("billing_batch_size_count");
  const batchSeconds = metric("billing_batch_seconds_sum");

  const failed = await queue.getFailedCount();
  const [ledger] = await db.prisma.$queryRaw<{ records: bigint; requests: bigint; cost: bigint }[]>`
    SELECT (SELECT count(*) FROM usage_records) AS records,
           (SELECT coalesce(sum(requests), 0) FROM usage_aggregates)::bigint AS requests,
           (SELECT coalesce(sum(cost_nano), 0) FROM usage_aggregates)::bigint AS cost`;
  const exact = failed === 0 && ledger!.records === BigInt(EVENTS) && ledger!.requests === BigInt(EVENTS) && ledger!.cost === BigInt(EVENTS) * EVENT_COST_NANO;

  const us = (value: number) => `${value.toFixed(1)} us`;
  console.log(`worker: ${WORKER_MAIN} ${JSON.stringify(settings)}`);
  console.log(`events ${EVENTS} (${EVENTS_PER_JOB} per job) drained in ${elapsed.toFixed(2)} s: ${Math.round(EVENTS / elapsed)} events/s`);
  console.log(`CPU per event: worker ${us(used.worker)}, postgres ${us(used.postgres)}, redis ${us(used.redis)}, total ${us(used.worker + used.postgres + used.redis)}`);
  console.log(`ledger ${exact ? "exact" : "NOT EXACT"}: ${ledger!.records} records, ${ledger!.requests} requests in the aggregates, ${failed} failed jobs`);
  if (batches > 0) console.log(`ledger batches: ${batches}, ${(metric("billing_batch_size_sum") / batches).toFixed(1)} events and ${((batchSeconds / batches) * 1000).toFixed(1)} ms per statement`);
  if (!exact) process.exitCode = 1;
} finally {
  if (worker && worker.exitCode === null) {
    const exited = once(worker, "exit");
    worker.kill("SIGTERM");
    await exited;
  }
  await queue.close();
  connection.disconnect();
  await db.close();
  await Promise.all([postgres.destroy(), redis.destroy()]);
}
