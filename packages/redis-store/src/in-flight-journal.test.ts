// The in-flight journal's Redis side: checkpoints keep a process alive on Redis's clock, a dead
// process's journal is claimed by exactly one of any number of sweepers, and an abandoned claim is
// taken over once it runs out.
import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestRedis } from "@gateway/testing";
import {
  claimDeadJournals,
  finishClaim,
  journalKeys,
  readClaimedJournal,
  removeJournal,
  takeClaimedEntry,
  writeJournalCheckpoint,
  type JournalEntry,
} from "./in-flight-journal.ts";

const testRedis = new TestRedis();
const { prefix } = testRedis;
let redis: Redis;
const meta = { processTag: "tag-1", pid: 1, host: "test" };

beforeAll(async () => {
  redis = await testRedis.start();
});
afterAll(() => testRedis.stop());

function entry(requestId: string, outputTokens = 0): JournalEntry {
  return {
    requestId,
    apiKeyId: "key_1",
    vendorId: "vnd_1",
    serverOption: "standard",
    model: "gpt-test",
    endpoint: "chat.completions",
    stream: true,
    upstream: "sim",
    upstreamModel: "sim-model",
    startedAt: 1,
    usage: { inputTokens: 10, outputTokens, cachedInputTokens: 0, cacheWriteTokens: 0, cacheWrite1hTokens: 0, reasoningTokens: 0, images: 0, webSearchRequests: 0 },
    checkpointAt: 2,
    reservation: null,
  };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("in-flight journal in Redis", () => {
  it("keeps a live process's journal from sweepers, and hands a dead one's over with its last checkpoint", async () => {
    const processId = `p-${randomUUID()}`;
    expect(await writeJournalCheckpoint(redis, prefix, { processId, heartbeatMs: 60_000, meta, upserts: [entry("req_a"), entry("req_b")], deletes: [] })).toBe(false);
    expect(await writeJournalCheckpoint(redis, prefix, { processId, heartbeatMs: 60_000, meta, upserts: [entry("req_a", 40)], deletes: ["req_b"] })).toBe(true);
    expect(await claimDeadJournals(redis, prefix, 60_000)).not.toContain(processId);

    // Its last heartbeat runs out (a 1 ms heartbeat stands for a process that stopped writing).
    await writeJournalCheckpoint(redis, prefix, { processId, heartbeatMs: 1, meta, upserts: [], deletes: [] });
    await pause(5);
    expect(await claimDeadJournals(redis, prefix, 60_000)).toContain(processId);
    const claimed = await readClaimedJournal(redis, prefix, processId);
    expect(claimed.meta).toEqual(meta);
    expect(claimed.entries).toEqual([expect.objectContaining({ requestId: "req_a", usage: expect.objectContaining({ outputTokens: 40 }) })]);
    expect(claimed.malformed).toEqual([]);
    // Claimed once: the next round does not hand it out again.
    expect(await claimDeadJournals(redis, prefix, 60_000)).not.toContain(processId);
    expect(await takeClaimedEntry(redis, prefix, processId, "req_a")).toBe(true);
    expect(await takeClaimedEntry(redis, prefix, processId, "req_a")).toBe(false);
    await finishClaim(redis, prefix, processId);
    expect(await redis.exists(journalKeys(prefix).claimed(processId))).toBe(0);
  });

  it("hands the sweeper each reservation whole, a field the limiter adds later included", async () => {
    const processId = `p-${randomUUID()}`;
    const reservation = { requestId: "req_r", keyId: "key_1", reservationNano: "5", tokens: 3, hasQuota: true, budget: null, leaseId: null, processTag: "tag-1", tokensHolder: "tag-1.t0", addedLater: 7 };
    await writeJournalCheckpoint(redis, prefix, { processId, heartbeatMs: 1, meta, upserts: [{ ...entry("req_r"), reservation }], deletes: [] });
    await pause(5);
    expect(await claimDeadJournals(redis, prefix, 60_000)).toContain(processId);
    expect((await readClaimedJournal(redis, prefix, processId)).entries[0]?.reservation).toEqual(reservation);
    await finishClaim(redis, prefix, processId);
  });

  it("a process that wrote after being claimed is told so", async () => {
    const processId = `p-${randomUUID()}`;
    await writeJournalCheckpoint(redis, prefix, { processId, heartbeatMs: 1, meta, upserts: [entry("req_c")], deletes: [] });
    await pause(5);
    expect(await claimDeadJournals(redis, prefix, 60_000)).toContain(processId);
    expect(await writeJournalCheckpoint(redis, prefix, { processId, heartbeatMs: 60_000, meta, upserts: [], deletes: [] })).toBe(false);
    await removeJournal(redis, prefix, processId);
    await finishClaim(redis, prefix, processId);
  });

  it("a graceful end leaves nothing to sweep", async () => {
    const processId = `p-${randomUUID()}`;
    await writeJournalCheckpoint(redis, prefix, { processId, heartbeatMs: 1, meta, upserts: [entry("req_d")], deletes: [] });
    await removeJournal(redis, prefix, processId);
    await pause(5);
    expect(await claimDeadJournals(redis, prefix, 60_000)).not.toContain(processId);
    expect(await redis.exists(journalKeys(prefix).process(processId))).toBe(0);
  });

  it("an abandoned claim is taken over once it runs out", async () => {
    const processId = `p-${randomUUID()}`;
    await writeJournalCheckpoint(redis, prefix, { processId, heartbeatMs: 1, meta, upserts: [entry("req_e")], deletes: [] });
    await pause(5);
    expect(await claimDeadJournals(redis, prefix, 1)).toContain(processId);
    await pause(5);
    // The first sweeper died mid-sweep: its claim ran out, the journal is still there.
    expect(await claimDeadJournals(redis, prefix, 60_000)).toContain(processId);
    expect((await readClaimedJournal(redis, prefix, processId)).entries).toHaveLength(1);
    await finishClaim(redis, prefix, processId);
  });

  it("any number of concurrent sweepers claim each dead journal exactly once (property)", async () => {
    const sweepers = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const client = testRedis.connect();
        await client.ping();
        return client;
      }),
    );
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 4 }), async (dead, concurrent) => {
        const own = `${prefix}:${randomUUID().slice(0, 6)}`;
        const ids = Array.from({ length: dead }, (_, index) => `p-${index}`);
        for (const processId of ids) await writeJournalCheckpoint(redis, own, { processId, heartbeatMs: 1, meta, upserts: [entry(`req_${processId}`)], deletes: [] });
        const live = `p-live`;
        await writeJournalCheckpoint(redis, own, { processId: live, heartbeatMs: 60_000, meta, upserts: [entry("req_live")], deletes: [] });
        await pause(3);
        const claims = await Promise.all(sweepers.slice(0, concurrent).map((client) => claimDeadJournals(client, own, 60_000, 5)));
        const again = await claimDeadJournals(redis, own, 60_000, 100);
        const all = [...claims.flat(), ...again];
        expect(all.sort()).toEqual([...ids].sort());
        for (const processId of ids) await finishClaim(redis, own, processId);
        await removeJournal(redis, own, live);
      }),
      { numRuns: 25 },
    );
  });
});
