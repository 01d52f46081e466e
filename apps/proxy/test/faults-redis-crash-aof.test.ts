// The billing queue's Redis crashes (SIGKILL, no shutdown) under load and comes back from its
// append-only file (contract section 13): every request a client got a 200 for is counted in the
// ledger exactly once, or is one of the few the AOF's fsync policy allows to vanish.
//
// What a crash can take: the proxy drops an event from its buffer only once BullMQ's add has been
// answered, and Redis hands each command to the AOF (write(2), the kernel's page cache) before it
// answers, so a killed process normally loses nothing it acknowledged. With `everysec` two things
// are not on disk yet: behind a slow fsync Redis postpones that write (up to 2 s) and still
// answers, and a crash of the machine (kernel, power) loses what was not fsynced, the last second
// or two. Either way only events acknowledged in the 2 s before the crash. With `always` Redis
// fsyncs before it answers: nothing acknowledged is lost.
//
// The key has limits: between the kill and the proxy's reconnect its requests are admitted only
// from the lease the proxy holds, else refused 503 (contract section 14), and a refused request is
// never billed.
// https://redis.io/docs/latest/operate/oss_and_stack/management/persistence/#how-durable-is-the-append-only-file
import { setTimeout as delay } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "@gateway/logger";
import { loadBillingWorkerConfig, startBillingWorker, type RunningBillingWorker } from "@gateway/billing-worker";
import { startPrivateRedisGateway, type PrivateRedisGateway } from "./private-redis-gateway.ts";
import { chatRequest, startTraffic } from "./traffic.ts";

const LANES = 8;
/** After the first request served on the restarted Redis: how long until every request must be (AOF replay, the admission wait). */
const RECOVERY_GRACE_MS = 3_000;
/** The proxy's lease size (its default), stated: what the leases held at the kill can still admit. */
const LEASE_REQUESTS = 200;
/** An everysec AOF can lose the writes of up to 2 s (Redis postpones a write behind a slow fsync that long). */
const FSYNC_WINDOW_MS = 2_000;
/** Each run takes 7 to 13 s alone; the margin is for a loaded machine (the whole suite at once). */
const TIMEOUT_MS = 40_000;
const silent = createLogger({ name: "test", level: "silent" });

let gateway: PrivateRedisGateway | undefined;
let worker: RunningBillingWorker | undefined;

afterEach(async () => {
  await worker?.close();
  await gateway?.close();
  worker = gateway = undefined;
});

interface CrashOutcome {
  served: number;
  /** 503s: the key's limits could not be checked while Redis was away, and no lease admitted. */
  refused: number;
  lost: number;
  duplicated: number;
  /** 200s whose request ended in the fsync window before the kill: the most `everysec` may lose. */
  atRisk: number;
  /** Lost requests that ended before that window: a loss no fsync policy explains. */
  lostBeforeWindow: number;
  /** Jobs waiting in the queue (the worker paused) when Redis was killed. */
  backlog: number;
  requestsPerSecond: number;
}

async function crashUnderLoad(appendfsync: "everysec" | "always"): Promise<CrashOutcome> {
  gateway = await startPrivateRedisGateway({ redis: { persist: true, appendfsync }, proxyEnv: { LIMIT_LEASE_REQUESTS: String(LEASE_REQUESTS) } });
  const { proxy, redis, controlPlane } = gateway;
  const prisma = controlPlane.db.prisma;
  // Short locks, so a job whose completion the crash took is handed back (and found recorded) quickly.
  worker = await startBillingWorker(loadBillingWorkerConfig({
    DATABASE_URL: controlPlane.config.DATABASE_URL, REDIS_URL: redis.url, REDIS_PREFIX: controlPlane.config.REDIS_PREFIX,
    PORT: "0", WORKER_LOCK_DURATION_MS: "2000", WORKER_STALLED_INTERVAL_MS: "500",
  }), silent);
  const key = await gateway.newKey();
  const warm = await chatRequest(proxy.url, key);
  expect(warm.status).toBe(200);

  const traffic = startTraffic(proxy.url, key, LANES);
  const startedAt = Date.now();
  await expect.poll(() => prisma.usageRecord.count(), { timeout: 10_000, interval: 50 }).toBeGreaterThanOrEqual(20);

  // A backlog at the crash, older than the fsync window: with the worker paused, these acknowledged
  // events exist only in Redis, so a Redis that came back without them shows as lost requests.
  await worker.worker.pause();
  await delay(FSYNC_WINDOW_MS + 500);
  const backlog = await gateway.queue.getWaitingCount();
  await redis.kill();
  const killedAt = Date.now();
  await redis.restart(); // same port and data directory: the AOF is replayed
  const upAt = Date.now();
  worker.worker.resume();
  await expect.poll(() => traffic.results.filter((result) => result.startedAt >= killedAt && result.status === 200).length, { timeout: 10_000 }).toBeGreaterThanOrEqual(50);
  // Traffic goes on past the recovery grace (below), so the requests after it say whether admissions
  // came back without a restart.
  await expect
    .poll(() => {
      const back = traffic.results.find((result) => result.startedAt >= upAt && result.status === 200);
      return back ? traffic.results.filter((result) => result.startedAt >= back.finishedAt + RECOVERY_GRACE_MS).length : 0;
    }, { timeout: 15_000 })
    .toBeGreaterThanOrEqual(20);
  const results = await traffic.stop();
  const stoppedAt = Date.now();

  // Every buffered event written, every job the queue still has run to the end.
  await proxy.services.billing.flush();
  expect(proxy.services.billing.dropped).toBe(0);
  await expect
    .poll(async () => {
      const counts = await gateway!.queue.getJobCounts("waiting", "active", "delayed", "prioritized");
      return Object.values(counts).reduce((sum, count) => sum + count, 0);
    }, { timeout: 15_000, interval: 100 })
    .toBe(0);
  expect(await gateway.queue.getFailedCount()).toBe(0);

  const served = results.filter((result) => result.status === 200);
  // A full 200, or a 503 while Redis was away: at most what the leases held at the kill could admit
  // (the live one, and one more whose grant was on its way back), and once a request was admitted
  // on the restarted Redis, every later one.
  expect(results.filter((result) => !((result.status === 200 && result.complete) || result.status === 503))).toEqual([]);
  const whileAway = results.filter((result) => result.startedAt >= killedAt && result.startedAt < upAt);
  expect(whileAway.filter((result) => result.status === 200).length).toBeLessThanOrEqual(2 * LEASE_REQUESTS);
  const firstBack = results.find((result) => result.startedAt >= upAt && result.status === 200);
  expect(firstBack).toBeDefined();
  // The first 200 after the restart may still come from a lease held through the crash, while the
  // restarted Redis replays its AOF (answering LOADING: a 503); past the grace every request is served.
  expect(results.filter((result) => result.startedAt >= firstBack!.finishedAt + RECOVERY_GRACE_MS && result.status !== 200)).toEqual([]);
  expect(results.filter((result) => result.status === 503 && result.startedAt < killedAt && result.finishedAt < killedAt)).toEqual([]);
  // The request id is the ledger's primary key, so a row cannot repeat; a job run twice would show
  // as a day total counting more requests than there are rows. Nothing but these requests is billed.
  const rows = await prisma.usageRecord.findMany({ select: { requestId: true } });
  const recorded = new Set(rows.map((row) => row.requestId));
  const totals = await prisma.usageKeyDay.aggregate({ _sum: { requests: true } });
  const sent = new Set([warm, ...results].map((result) => result.requestId));
  expect(rows.filter((row) => !sent.has(row.requestId))).toEqual([]);
  expect(results.filter((result) => result.status === 503 && recorded.has(result.requestId))).toEqual([]);
  const lost = served.filter((result) => !recorded.has(result.requestId));
  return {
    served: served.length,
    refused: results.length - served.length,
    lost: lost.length,
    lostBeforeWindow: lost.filter((result) => result.finishedAt <= killedAt - FSYNC_WINDOW_MS).length,
    duplicated: (totals._sum.requests ?? 0) - rows.length,
    backlog,
    atRisk: served.filter((result) => result.finishedAt <= killedAt && result.finishedAt > killedAt - FSYNC_WINDOW_MS).length,
    requestsPerSecond: Math.round((results.length * 1000) / (stoppedAt - startedAt)),
  };
}

function report(appendfsync: string, outcome: CrashOutcome): void {
  console.log(
    `redis SIGKILL with appendfsync ${appendfsync}: lost ${outcome.lost} of ${outcome.served} (200s), ${outcome.refused} refused 503, duplicated ${outcome.duplicated}, ` +
      `${outcome.backlog} waiting in the queue and ${outcome.atRisk} ended in the ${FSYNC_WINDOW_MS / 1000} s before the kill, ${outcome.requestsPerSecond} requests/s`,
  );
}

describe("the billing queue's Redis killed under load and restarted from its append-only file", () => {
  it("appendfsync everysec: no event twice, and no more lost than the fsync window before the crash", async () => {
    const outcome = await crashUnderLoad("everysec");
    report("everysec", outcome);
    expect(outcome.backlog).toBeGreaterThan(0);
    expect(outcome.duplicated).toBe(0);
    expect(outcome.lostBeforeWindow).toBe(0);
    expect(outcome.lost).toBeLessThanOrEqual(outcome.atRisk);
  }, TIMEOUT_MS);

  it("appendfsync always: every 200 is in the ledger exactly once", async () => {
    const outcome = await crashUnderLoad("always");
    report("always", outcome);
    expect(outcome.backlog).toBeGreaterThan(0);
    expect(outcome.duplicated).toBe(0);
    expect(outcome.lost).toBe(0);
  }, TIMEOUT_MS);
});
