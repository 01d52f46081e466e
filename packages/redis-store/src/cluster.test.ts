// The Redis records, limit scripts and the billing queue on a real 3-master Redis Cluster (and one
// Sentinel), started from the local redis-server: every multi-key operation must stay in one slot.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Queue, Worker } from "bullmq";
import { BILLING_QUEUE } from "@gateway/contracts";
import { startRedisCluster, startRedisSentinel, type LocalRedisTopology } from "@gateway/testing";
import { connectRedisFromConfig, redisReady, type RedisClient } from "./connect.ts";
import { LimitStore, type AdmitResult } from "./limit-store.ts";
import { RecordStore } from "./record-store.ts";
import { redisKeys } from "./redis-keys.ts";
import type { KeyRecord, StoreEvent } from "./records.ts";
import { rateWindowRoom } from "./rate-window-room.ts";

const REDIS_URL = "redis://ignored-with-nodes:6379";
const prefix = `test-${randomUUID().slice(0, 8)}`;
const record: KeyRecord = { id: "key_1", vendorId: "vnd_1", name: "k", prefix: "sk-abcd", serverOption: "standard", status: "active", expiresAt: null, quotaNano: "1000", rpm: null, tpm: null, budget: null, secretExpiresAt: null, revision: 0 };

let cluster: LocalRedisTopology;
let redis: RedisClient;
const opened: RedisClient[] = [];

function open(options: Parameters<typeof connectRedisFromConfig>[1] = {}): RedisClient {
  const client = connectRedisFromConfig({ REDIS_URL, REDIS_CLUSTER_NODES: cluster.nodes }, options);
  opened.push(client);
  return client;
}

/** The master port serving each key, to prove a test's keys really are spread over the nodes. */
async function mastersOf(keys: string[]): Promise<Set<number>> {
  const slots = (await redis.call("CLUSTER", "SLOTS")) as [number, number, [string, number]][];
  const ports = new Set<number>();
  for (const key of keys) {
    const slot = (await redis.call("CLUSTER", "KEYSLOT", key)) as number;
    const range = slots.find(([from, to]) => slot >= from && slot <= to);
    if (range) ports.add(range[2][1]);
  }
  return ports;
}

/** `count` random key ids whose counters fall on every master (twelve random ones miss one about 2 % of the time). */
async function keysOnEveryMaster(limits: LimitStore, count: number): Promise<string[]> {
  for (;;) {
    const keyIds = Array.from({ length: count }, (_, index) => `key_${randomUUID().slice(0, 8)}_${index}`);
    if ((await mastersOf(keyIds.map((id) => limits.keys.quota(id)))).size === 3) return keyIds;
  }
}

beforeAll(async () => {
  cluster = await startRedisCluster(3);
  redis = open({ failFast: true, name: "cluster-test" });
  await redisReady(redis);
}, 30_000);

afterAll(async () => {
  opened.forEach((client) => client.disconnect());
  await cluster?.stop();
});

describe("on a Redis Cluster", () => {
  it("opens a Cluster client from REDIS_CLUSTER_NODES", () => {
    expect(redis.isCluster).toBe(true);
  });

  it("writes and reads key records on every node and delivers invalidations through pub/sub", async () => {
    const store = new RecordStore(redis, prefix);
    const events: StoreEvent[] = [];
    await store.subscribe(open(), (event) => events.push(event), () => undefined);
    const hashes = Array.from({ length: 30 }, (_, index) => `hash-${index}`);
    expect((await mastersOf(hashes.map((hash) => store.keys.apiKey(hash)))).size).toBe(3);

    await store.writeKey(hashes[0]!, record);
    await expect.poll(() => events).toEqual([{ type: "key_changed", hash: hashes[0] }]);
    await store.restoreKeys(hashes.map((hash, index) => [hash, { ...record, id: `key_${index}` }] as const));
    const read = await Promise.all(hashes.map((hash) => store.readKey(hash)));
    expect(read.map((value) => value?.id)).toEqual(hashes.map((_, index) => `key_${index}`));

    await store.deleteKey(hashes[1]!);
    expect(await store.readKey(hashes[1]!)).toBeNull();
    await expect.poll(() => events.length).toBe(2);
    const snapshot = { version: 3, publishedAt: 1, upstreams: {}, models: {}, serverOptions: {} };
    await store.writeSnapshot(snapshot);
    expect(await store.readSnapshot()).toEqual(snapshot);
  });

  it("admits and settles limits for keys spread over all slots, each key's counters in one slot", async () => {
    const limits = new LimitStore(redis, prefix);
    const keyIds = await keysOnEveryMaster(limits, 12);
    expect((await mastersOf(keyIds.map((id) => limits.keys.quota(id)))).size).toBe(3);
    const now = Date.now();
    for (const keyId of keyIds) {
      const admit = () => limits.admit({ keyId, rpm: 2, tpm: 1000, quotaNano: 500n, budget: null, reservationNano: 100n, now });
      expect((await admit()).verdict).toBe("admitted");
      expect((await admit()).verdict).toBe("admitted");
      expect((await admit()).verdict).toBe("requests_limited");
      await limits.settle({ keyId, tokens: 40, reservationNano: 100n, costNano: 70n, hasQuota: true, budget: null, now });
      expect(await limits.readQuota(keyId)).toEqual({ spent: 70n, reserved: 100n });
      await limits.setSpent(keyId, 500n);
      expect((await limits.admit({ keyId, rpm: null, tpm: null, quotaNano: 500n, budget: null, reservationNano: 1n, now })).verdict).toBe("quota_exhausted");
    }
  });

  it("grants, admits from and gives back leases for keys spread over all slots", async () => {
    await rateWindowRoom();
    const limits = new LimitStore(redis, prefix, { leaseRequests: 10, leaseMs: 60_000 });
    const settled: Promise<void>[] = [];
    const keyIds = Array.from({ length: 12 }, (_, index) => `key_${randomUUID().slice(0, 8)}_${index}`);
    for (const keyId of keyIds) {
      const input = { keyId, rpm: 1_000, tpm: 100_000, quotaNano: 10n ** 9n, budget: { limitNano: 10n ** 9n, period: "day" as const }, reservationNano: 100n };
      const admitted: AdmitResult[] = [];
      for (let i = 0; i < 5; i += 1) admitted.push(await limits.admit(input));
      expect(admitted.every((a) => a.verdict === "admitted" && a.lease === admitted[0]!.lease && a.lease !== null)).toBe(true);
      for (const a of admitted) settled.push(limits.settle({ keyId, tokens: 3, reservationNano: 100n, costNano: 70n, hasQuota: true, budget: a.budget, lease: a.lease }));
    }
    await limits.close();
    await Promise.all(settled);
    const window = Math.floor(Date.now() / 60_000);
    for (const keyId of keyIds) {
      expect(await limits.readQuota(keyId)).toEqual({ spent: 350n, reserved: 0n });
      expect(await redis.get(limits.keys.requestWindow(keyId, window))).toBe("5");
    }
  });

  it("runs the billing queue under the hash-tagged prefix: jobs added once by id, drained by a worker", async () => {
    const queuePrefix = redisKeys(prefix).queuePrefix;
    const queue = new Queue(BILLING_QUEUE, { connection: open({ name: "cluster-test-queue" }), prefix: queuePrefix });
    const seen: string[] = [];
    const worker = new Worker(BILLING_QUEUE, async (job) => void seen.push(job.id!), { connection: open({ name: "cluster-test-worker" }), prefix: queuePrefix, concurrency: 8 });
    try {
      const jobs = Array.from({ length: 200 }, (_, index) => ({ name: "usage", data: { index }, opts: { jobId: `req_${index}` } }));
      await queue.addBulk(jobs);
      await queue.addBulk(jobs.slice(0, 50)); // the same ids again: no new jobs
      await expect.poll(() => seen.length, { timeout: 15_000 }).toBe(200);
      expect(new Set(seen).size).toBe(200);
      expect(await queue.getJobCounts("waiting", "active", "delayed", "failed")).toEqual({ waiting: 0, active: 0, delayed: 0, failed: 0 });
    } finally {
      await worker.close();
      await queue.obliterate({ force: true });
      await queue.close();
    }
  }, 20_000);

  it("needs that hash tag: a queue prefix without one is refused with CROSSSLOT", async () => {
    const queue = new Queue(BILLING_QUEUE, { connection: open({ name: "cluster-test-untagged" }), prefix: `${prefix}:bull` });
    try {
      await expect(queue.add("usage", {}, { jobId: "req_x" })).rejects.toThrow(/CROSSSLOT/);
    } finally {
      await queue.close();
    }
  });
});

describe("on Redis Sentinel", () => {
  it("finds the master through REDIS_SENTINELS and serves the records", async () => {
    const sentinel = await startRedisSentinel("gateway");
    const client = connectRedisFromConfig({ REDIS_URL, REDIS_SENTINELS: sentinel.nodes, REDIS_SENTINEL_NAME: "gateway" }, { failFast: true });
    try {
      await redisReady(client);
      const store = new RecordStore(client, prefix);
      await store.writeKey("hash-s", record);
      expect(await store.readKey("hash-s")).toEqual(record);
      expect(Number((await client.call("CONFIG", "GET", "port") as string[])[1])).toBe(sentinel.masterPort);
    } finally {
      client.disconnect();
      await sentinel.stop();
    }
  }, 20_000);
});

describe("connectRedisFromConfig", () => {
  it("refuses a Cluster and Sentinels at once", () => {
    const nodes = [{ host: "127.0.0.1", port: 7000 }];
    expect(() => connectRedisFromConfig({ REDIS_URL, REDIS_CLUSTER_NODES: nodes, REDIS_SENTINELS: nodes })).toThrow(/both set/);
  });
});
