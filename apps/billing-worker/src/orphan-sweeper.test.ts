// The sweeper (contract section 14, "A process that dies"): the open requests of a proxy process
// whose journal heartbeat ran out get exactly one ledger row each (interrupted, estimated, billed
// for their last checkpoint), their reservations go back and their cost is booked exactly once,
// however many sweepers run; a request the proxy billed before dying keeps its own row.
import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EMPTY_USAGE, newId } from "@gateway/contracts";
import { createDb, type Db } from "@gateway/db";
import { createLogger } from "@gateway/logger";
import { journalKeys, LimitStore, writeJournalCheckpoint, type HeldReservation, type JournalEntry } from "@gateway/redis-store";
import { startBillingWorker, type RunningBillingWorker } from "./server.ts";
import { OrphanSweeper } from "./orphan-sweeper.ts";
import { PriceLoader } from "./price-loader.ts";
import { billingEvent, createTestEnvironment, PRODUCER_JOB_OPTIONS, seedCatalog, waitFor, type Seeded, type TestEnvironment } from "./test-fixtures.ts";

let environment: TestEnvironment;
let db: Db;
let seeded: Seeded;
let running: RunningBillingWorker;
let redis: Redis;
let limits: LimitStore;

const QUOTA_NANO = 100n * 1_000_000_000n;
const RESERVATION_NANO = 2_000_000n;
/** Each request's input estimate + output bound, held against the TPM while it runs. */
const HELD_TOKENS = 1_500;
const TPM = 1_000_000;

beforeAll(async () => {
  environment = await createTestEnvironment();
  db = createDb({ url: environment.database.url, poolSize: 4 });
  seeded = await seedCatalog(db.prisma);
  await db.prisma.apiKey.update({ where: { id: seeded.apiKeyId }, data: { quotaNano: QUOTA_NANO } });
  running = await startBillingWorker(environment.config({ ORPHAN_SWEEP_INTERVAL_MS: "200" }));
  redis = new Redis(environment.redisUrl);
  // The dead proxy process's limits: its requests' reservations are in Redis as it made them.
  limits = new LimitStore(redis, environment.prefix);
}, 60_000);

afterAll(async () => {
  await running?.close();
  redis?.disconnect();
  await db?.close();
  await environment?.cleanup();
});

/** Admits a request as the dead process did, and its journal entry with `outputTokens` checkpointed. */
async function admitted(outputTokens: number): Promise<JournalEntry> {
  const requestId = newId("req");
  const result = await limits.admit({ keyId: seeded.apiKeyId, rpm: null, tpm: TPM, tokens: HELD_TOKENS, quotaNano: QUOTA_NANO, budget: null, reservationNano: RESERVATION_NANO });
  expect(result.verdict).toBe("admitted");
  // As Limiter.reservation describes it (its own admission: the tokens are held under its holder).
  const reservation: HeldReservation = { requestId, keyId: seeded.apiKeyId, reservationNano: RESERVATION_NANO.toString(), tokens: HELD_TOKENS, hasQuota: true, budget: null, leaseId: null, processTag: limits.processTag, tokensHolder: result.tokensHolder };
  const { usage: _usage, status: _status, estimated: _estimated, finishedAt: _finished, ttfbMs: _ttfb, ...fields } = billingEvent(seeded, { requestId, startedAt: Date.now() - 5_000 });
  return { ...fields, stream: true, usage: { ...EMPTY_USAGE, inputTokens: 120, outputTokens }, checkpointAt: Date.now() - 1_000, reservation };
}

/** The journal of a process that stopped: its last checkpoint's heartbeat has run out. */
async function deadProcess(entries: JournalEntry[]): Promise<string> {
  const processId = `dead-${randomUUID().slice(0, 8)}`;
  await writeJournalCheckpoint(redis, environment.prefix, { processId, heartbeatMs: 1, meta: { processTag: limits.processTag, pid: 1, host: "gone" }, upserts: entries, deletes: [] });
  return processId;
}

const rowsOf = (entries: JournalEntry[]) => db.prisma.usageRecord.findMany({ where: { requestId: { in: entries.map((entry) => entry.requestId) } }, orderBy: { requestId: "asc" } });

async function ledgerCost(): Promise<bigint> {
  const sum = await db.prisma.usageRecord.aggregate({ where: { apiKeyId: seeded.apiKeyId }, _sum: { costNano: true } });
  return sum._sum.costNano ?? 0n;
}

describe("orphan sweeper", () => {
  it("bills every open request of a dead process once (interrupted, estimated, last checkpoint) and gives its reservations back", async () => {
    const entries = await Promise.all([admitted(0), admitted(37), admitted(500)]);
    // The proxy had queued this one's event (status ok) before it died: that row stands.
    const billed = entries[2]!;
    const okEvent = billingEvent(seeded, { requestId: billed.requestId, usage: billed.usage, startedAt: billed.startedAt, finishedAt: Date.now() });
    await environment.queue.add("usage", okEvent, { ...PRODUCER_JOB_OPTIONS, jobId: okEvent.requestId });
    await waitFor(async () => (await rowsOf([billed])).length === 1, { what: "the proxy's own row" });
    expect((await limits.readQuota(seeded.apiKeyId)).reserved).toBe(3n * RESERVATION_NANO);
    expect(await limits.readTokensHeld(seeded.apiKeyId)).toBe(3 * HELD_TOKENS);

    const processId = await deadProcess(entries);
    // Polled, not timed: the contract's bound is 60 s; the worker sweeps every 200 ms here.
    const rows = await waitFor(async () => ((await rowsOf(entries)).length === 3 ? rowsOf(entries) : undefined), { timeoutMs: 30_000, what: "three ledger rows" });
    const byId = new Map(rows.map((row) => [row.requestId, row]));
    for (const entry of entries.slice(0, 2)) {
      expect(byId.get(entry.requestId)).toMatchObject({ status: "interrupted", estimated: true, stream: true, inputTokens: 120n, outputTokens: BigInt(entry.usage.outputTokens), ttfbMs: null });
    }
    expect(byId.get(billed.requestId)).toMatchObject({ status: "ok", estimated: false });

    const journal = journalKeys(environment.prefix);
    await waitFor(async () => (await redis.exists(journal.claimed(processId))) === 0, { what: "the claimed journal to be deleted" });
    expect(await redis.exists(journal.process(processId))).toBe(0);
    expect(await redis.zscore(journal.live, processId)).toBeNull();
    // Reservations back, and each request's cost booked once (the ledger holds the same amounts).
    const quota = await limits.readQuota(seeded.apiKeyId);
    expect(quota.reserved).toBe(0n);
    expect(quota.spent).toBe(await ledgerCost());
    expect(await limits.readTokensHeld(seeded.apiKeyId)).toBe(0);
    const metrics = await (await fetch(`${running.url}/metrics`)).text();
    expect(metrics).toMatch(/billing_dead_proxy_processes_total\{app="billing-worker"\} 1\n/);
    expect(metrics).toMatch(/billing_interrupted_requests_total\{app="billing-worker"\} 3\n/);
  });

  it("any number of sweepers at once: one row per request, each reservation released and each cost booked once", async () => {
    const before = await limits.readQuota(seeded.apiKeyId);
    const entries = await Promise.all(Array.from({ length: 30 }, (_, index) => admitted(index * 11)));
    expect((await limits.readQuota(seeded.apiKeyId)).reserved).toBe(before.reserved + 30n * RESERVATION_NANO);
    await deadProcess(entries);
    const silent = createLogger({ name: "test", level: "silent" });
    const sweepers = Array.from({ length: 3 }, () => new OrphanSweeper({ redis, prefix: environment.prefix, queue: environment.queue, prices: new PriceLoader(db.prisma, { ttlMs: 1_000 }), logger: silent, intervalMs: 60_000, claimMs: 60_000 }));
    // Those three and the worker's own, all at once.
    const billed = await Promise.all(sweepers.map((sweeper) => sweeper.sweep()));
    const rows = await waitFor(async () => ((await rowsOf(entries)).length === 30 ? rowsOf(entries) : undefined), { timeoutMs: 30_000, what: "thirty ledger rows" });
    expect(rows.every((row) => row.status === "interrupted" && row.estimated)).toBe(true);
    expect(billed.reduce((sum, count) => sum + count, 0)).toBeLessThanOrEqual(30);
    await waitFor(async () => (await limits.readQuota(seeded.apiKeyId)).reserved === 0n || undefined, { what: "every reservation back" });
    expect(await limits.readTokensHeld(seeded.apiKeyId)).toBe(0);
    // A second release or booking would show here: spent is the ledger's figure exactly.
    await waitFor(async () => (await limits.readQuota(seeded.apiKeyId)).spent === (await ledgerCost()) || undefined, { what: "spent = ledger" });
    expect(await db.prisma.usageRecord.count({ where: { status: "interrupted" } })).toBe(32);
  });
});
