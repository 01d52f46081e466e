// The in-flight journal on a real 3-master Redis Cluster: its scripts touch several keys (the
// heartbeats, a process's hash, the claims), which must share one slot.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EMPTY_USAGE } from "@gateway/contracts";
import { startRedisCluster, type LocalRedisTopology } from "@gateway/testing";
import { connectRedisFromConfig, redisReady, type RedisClient } from "./connect.ts";
import { claimDeadJournals, finishClaim, readClaimedJournal, removeJournal, takeClaimedEntry, writeJournalCheckpoint, type JournalEntry } from "./in-flight-journal.ts";

const prefix = `test-${randomUUID().slice(0, 8)}`;
let cluster: LocalRedisTopology;
let redis: RedisClient;

beforeAll(async () => {
  cluster = await startRedisCluster(3);
  redis = connectRedisFromConfig({ REDIS_URL: "redis://ignored-with-nodes:6379", REDIS_CLUSTER_NODES: cluster.nodes }, { failFast: true, autoPipelining: true, name: "journal-cluster-test" });
  await redisReady(redis);
}, 30_000);

afterAll(async () => {
  redis?.disconnect();
  await cluster?.stop();
});

const entry = (requestId: string): JournalEntry => ({
  requestId, apiKeyId: "key_1", vendorId: "vnd_1", serverOption: "standard", model: "gpt-test", endpoint: "messages", stream: true,
  upstream: null, upstreamModel: null, startedAt: 1, usage: { ...EMPTY_USAGE, outputTokens: 5 }, checkpointAt: 2, reservation: null,
});

describe("in-flight journal on a Redis Cluster", () => {
  it("checkpoints, claims, reads and finishes a dead process's journal; a graceful end leaves nothing", async () => {
    const meta = { processTag: "tag", pid: 1, host: "h" };
    const dead = `dead-${randomUUID().slice(0, 6)}`;
    const live = `live-${randomUUID().slice(0, 6)}`;
    await writeJournalCheckpoint(redis, prefix, { processId: dead, heartbeatMs: 1, meta, upserts: [entry("req_1"), entry("req_2")], deletes: [] });
    await writeJournalCheckpoint(redis, prefix, { processId: live, heartbeatMs: 60_000, meta, upserts: [entry("req_3")], deletes: [] });
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await claimDeadJournals(redis, prefix, 60_000)).toEqual([dead]);
    const claimed = await readClaimedJournal(redis, prefix, dead);
    expect(claimed.entries.map((item) => item.requestId).sort()).toEqual(["req_1", "req_2"]);
    expect(await takeClaimedEntry(redis, prefix, dead, "req_1")).toBe(true);
    await finishClaim(redis, prefix, dead);
    await removeJournal(redis, prefix, live);
    expect(await claimDeadJournals(redis, prefix, 60_000)).toEqual([]);
  });
});
