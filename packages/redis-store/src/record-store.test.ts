import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Redis } from "ioredis";
import { resolveTestServices } from "@gateway/testing";
import { RecordStore } from "./record-store.ts";
import type { KeyRecord, StoreEvent } from "./records.ts";

let redis: Redis;
let subscriber: Redis;
let store: RecordStore;
const prefix = `test-${randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  const { redisUrl } = await resolveTestServices();
  redis = new Redis(redisUrl);
  subscriber = new Redis(redisUrl);
  store = new RecordStore(redis, prefix);
});
afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
  subscriber.disconnect();
});

const record: KeyRecord = { id: "key_1", vendorId: "vnd_1", name: "k", prefix: "sk-abcd", serverOption: "standard", status: "active", expiresAt: null, quotaNano: "100", rpm: null, tpm: 5, budget: null, secretExpiresAt: null, revision: 0 };

describe("RecordStore", () => {
  it("writes, reads and publishes a key change after the write", async () => {
    const events: StoreEvent[] = [];
    const seen: (KeyRecord | null)[] = [];
    await store.subscribe(subscriber, (event) => {
      events.push(event);
      if (event.type === "key_changed") void store.readKey(event.hash).then((value) => seen.push(value));
    }, () => undefined);
    await store.writeKey("hash1", record);
    await expect.poll(() => seen.length).toBe(1);
    expect(seen[0]).toEqual(record);
    expect(events).toEqual([{ type: "key_changed", hash: "hash1" }]);
    expect(await redis.get(`${prefix}:key:hash1`)).not.toBeNull();
  });

  it("refuses to write a record that breaks the shared schema", async () => {
    await expect(store.writeKey("hash2", { ...record, quotaNano: "ten" })).rejects.toThrow();
    expect(await store.readKey("hash2")).toBeNull();
  });

  it("never lets an older revision replace a newer record; an equal one overwrites", async () => {
    expect(await store.writeKey("hash3", { ...record, quotaNano: "300", revision: 3 })).toBe(true);
    expect(await store.writeKey("hash3", { ...record, quotaNano: "200", revision: 2 })).toBe(false);
    expect((await store.readKey("hash3"))?.quotaNano).toBe("300");
    expect(await store.writeKey("hash3", { ...record, quotaNano: "301", revision: 3 })).toBe(true);
    expect((await store.readKey("hash3"))?.quotaNano).toBe("301");
    // A record written before revisions existed counts as revision 0.
    await redis.set(`${prefix}:key:hash4`, JSON.stringify({ ...record, revision: undefined }));
    expect(await store.writeKey("hash4", { ...record, quotaNano: "1", revision: 1 })).toBe(true);
  });

  it("round-trips the routing snapshot", async () => {
    const prices = { inputPrice: "1", outputPrice: "2", cachedInputPrice: "1", cacheWritePrice: "2", cacheWrite1hPrice: "2", imagePrice: "0", requestPrice: "0", webSearchPrice: "5" };
    const snapshot = { version: 7, publishedAt: 1, upstreams: {}, models: {}, serverOptions: { standard: { name: "standard", models: ["m"], prices: { m: { ...prices, tiers: [{ aboveInputTokens: 10, ...prices, inputPrice: "3" }] } }, rpm: null, tpm: null, strictParams: false } } };
    await store.writeSnapshot(snapshot);
    expect(await store.readSnapshot()).toEqual(snapshot);
  });

  it("reads a snapshot published before aliases, dropped params and betas, target priorities, strict_params and model capabilities existed", async () => {
    const upstream = { name: "u", shape: "anthropic", baseUrl: "http://x", secretEnv: null, priority: 0, weight: 1, connectTimeoutMs: 1, firstByteTimeoutMs: 1, supportsResponses: true };
    const model = { name: "m", displayName: "m", ownedBy: "gateway", created: 1, targets: [{ upstream: "u", model: "um", weight: 2 }] };
    const old = { version: 9, publishedAt: 1, upstreams: { u: upstream }, models: { m: model }, serverOptions: { standard: { name: "standard", models: ["m"], prices: {}, rpm: null, tpm: null } } };
    await redis.set(`${prefix}:routing-snapshot`, JSON.stringify(old));
    const read = (await store.readSnapshot())!;
    expect(read.upstreams.u).toEqual({ ...upstream, dropBetas: ["oauth-2025-04-20"], responseTimeoutMs: 600000 });
    // No capabilities yet: 4096 output tokens, which every model accepts.
    const capabilities = { maxOutputTokens: 4096, contextWindow: 128_000, reasoning: false, sampling: true, midConversationSystem: false, vision: true, tools: true };
    expect(read.models.m).toEqual({ ...model, aliases: [], dropParams: [], position: 0, targets: [{ upstream: "u", model: "um", weight: 2, priority: 0 }], capabilities });
    expect(read.serverOptions.standard!.strictParams).toBe(false);
  });

  it("reads a snapshot published before the cache-write, request and web-search prices existed (they are 0)", async () => {
    const old = { version: 8, publishedAt: 1, upstreams: {}, models: {}, serverOptions: { standard: { name: "standard", models: ["m"], prices: { m: { inputPrice: "1", outputPrice: "2", cachedInputPrice: "1", imagePrice: "0" } }, rpm: null, tpm: null } } };
    await redis.set(`${prefix}:routing-snapshot`, JSON.stringify(old));
    expect((await store.readSnapshot())?.serverOptions.standard?.prices.m).toEqual({ ...old.serverOptions.standard.prices.m, cacheWritePrice: "0", cacheWrite1hPrice: "0", requestPrice: "0", webSearchPrice: "0", tiers: [] });
  });
});
