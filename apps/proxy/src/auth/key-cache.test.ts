// The key cache against a Redis of its own that goes away: known keys keep working, unknown ones
// get 503 (never a false 401), and a reconnect that forgets every entry does not strand a known key.
import { once } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GatewayError, hashSecret } from "@gateway/contracts";
import { connectRedis, RecordStore, type KeyRecord } from "@gateway/redis-store";
import { startPrivateRedis, type PrivateRedis } from "@gateway/testing";
import { KeyCache } from "./key-cache.ts";

let redis: PrivateRedis;
let store: RecordStore;

beforeAll(async () => {
  redis = await startPrivateRedis();
  const connection = connectRedis(redis.url, { failFast: true, name: "key-cache-test" });
  connection.on("error", () => undefined);
  await once(connection, "ready");
  store = new RecordStore(connection, "test");
});

afterAll(async () => {
  store?.redis.disconnect();
  await redis?.destroy();
});

function record(id: string): KeyRecord {
  return { id, vendorId: "vnd_test", name: "test", prefix: "sk-test", serverOption: "standard", status: "active", expiresAt: null, quotaNano: null, rpm: null, tpm: null, budget: null, secretExpiresAt: null, revision: 0 };
}

const redisAnswers = async () => store.redis.ping().then(() => true, () => false);

describe("KeyCache while Redis is away", () => {
  it("serves known keys from their last record, refuses unknown ones with 503, and reads Redis again once it is back", async () => {
    const known = hashSecret("sk-known-key");
    await store.writeSnapshot({ version: 1, publishedAt: Date.now(), upstreams: {}, models: {}, serverOptions: {} });
    await store.writeKey(known, record("key_known"));
    const cache = new KeyCache(store, { ttlMs: 1, negativeTtlMs: 1 });
    expect(await cache.get(known)).toMatchObject({ id: "key_known" });

    await redis.stop();
    await expect.poll(redisAnswers).toBe(false);
    // Expired (TTL 1 ms), and reconnect handling forgot every entry: the last record still serves.
    cache.expireAll();
    expect(await cache.get(known)).toMatchObject({ id: "key_known" });
    const unknown = await Promise.resolve(cache.get(hashSecret("sk-never-seen"))).catch((error: unknown) => error);
    expect(unknown).toBeInstanceOf(GatewayError);
    expect(unknown).toMatchObject({ code: "dependency_unavailable", status: 503 });

    await redis.restart();
    await expect.poll(redisAnswers, { timeout: 5_000 }).toBe(true);
    await store.writeKey(known, { ...record("key_known"), status: "revoked" });
    cache.expireAll();
    // Back online, the cache reads Redis again: the revocation made meanwhile is seen.
    expect(await cache.get(known)).toMatchObject({ status: "revoked" });
    expect(await cache.get(hashSecret("sk-never-seen"))).toBeNull();
  });

  it("treats a Redis that answers but holds no records (restarted empty) like one that is away", async () => {
    const known = hashSecret("sk-known-before-the-flush");
    await store.writeKey(known, record("key_flushed"));
    const cache = new KeyCache(store, { ttlMs: 1, negativeTtlMs: 60_000 });
    expect(await cache.get(known)).toMatchObject({ id: "key_flushed" });

    await store.redis.flushall();
    cache.expireAll();
    expect(await cache.get(known)).toMatchObject({ id: "key_flushed" });
    const unknown = await Promise.resolve(cache.get(hashSecret("sk-other"))).catch((error: unknown) => error);
    expect(unknown).toMatchObject({ code: "dependency_unavailable", status: 503 });

    // Once the control plane has rebuilt the store, a missing key is missing again.
    await store.writeSnapshot({ version: 2, publishedAt: Date.now(), upstreams: {}, models: {}, serverOptions: {} });
    expect(await cache.get(hashSecret("sk-other"))).toBeNull();
  });
});
