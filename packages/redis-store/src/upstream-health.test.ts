import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Redis } from "ioredis";
import { resolveTestServices } from "@gateway/testing";
import { mergeUpstreamHealth, readUpstreamHealth, upstreamHealthKey, UpstreamHealthWriter, type UpstreamHealthSnapshot } from "./upstream-health.ts";

let redis: Redis;
const prefix = `test-${randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  const { redisUrl } = await resolveTestServices();
  redis = new Redis(redisUrl);
});
afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

function snapshot(at: number, attempts: number, circuit: "closed" | "half_open" | "open", p50Ms: number, p99Ms: number): UpstreamHealthSnapshot {
  return { at, upstreams: { "openai-a": { attempts, failures: { http_5xx: 1, timeout: 2 }, circuit, p50Ms, p99Ms, ttfbP50Ms: p50Ms / 2 } } };
}

describe("upstream health in Redis", () => {
  it("is one hash, a field per process; readers skip snapshots older than 30 s and malformed fields", async () => {
    const now = Date.now();
    const one = new UpstreamHealthWriter(redis, prefix, "host-a:1");
    const two = new UpstreamHealthWriter(redis, prefix, "host-b:2");
    await one.write(snapshot(now, 10, "closed", 100, 400));
    await two.write(snapshot(now - 1_000, 30, "open", 200, 900));
    await redis.hset(upstreamHealthKey(prefix), "host-old:3", JSON.stringify(snapshot(now - 31_000, 5, "closed", 1, 1)), "host-bad:4", "{not json");
    expect(upstreamHealthKey(prefix)).toBe(`${prefix}:upstream-health`);
    expect(await redis.pttl(upstreamHealthKey(prefix))).toBeGreaterThan(60_000);

    const read = await readUpstreamHealth(redis, prefix, { now });
    expect(read.map((entry) => entry.processId)).toEqual(["host-a:1", "host-b:2"]);
    expect(read[0]!.snapshot).toEqual(snapshot(now, 10, "closed", 100, 400));
    // The raw format other apps read: JSON { at, upstreams: { name: { attempts, failures, circuit, p50Ms, p99Ms, ttfbP50Ms } } }.
    expect(JSON.parse((await redis.hget(upstreamHealthKey(prefix), "host-b:2"))!)).toEqual(snapshot(now - 1_000, 30, "open", 200, 900));

    const merged = mergeUpstreamHealth(read);
    expect(merged["openai-a"]).toEqual({ attempts: 40, failures: { http_5xx: 2, timeout: 4 }, circuit: "open", p50Ms: 175, p99Ms: 900, ttfbP50Ms: 87.5, processes: 2 });

    await one.remove();
    expect((await readUpstreamHealth(redis, prefix, { now })).map((entry) => entry.processId)).toEqual(["host-b:2"]);
  });

  it("a writer drops fields of processes gone for over a minute", async () => {
    const now = Date.now();
    const key = upstreamHealthKey(prefix);
    await redis.hset(key, "host-gone:9", JSON.stringify(snapshot(now - 61_000, 1, "closed", 1, 1)));
    await new UpstreamHealthWriter(redis, prefix, "host-c:5").write(snapshot(now, 1, "closed", 1, 1));
    expect(await redis.hexists(key, "host-gone:9")).toBe(0);
    expect(await redis.hexists(key, "host-c:5")).toBe(1);
  });
});
