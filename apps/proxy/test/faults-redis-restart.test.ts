// Redis restarted during traffic (issue 8): proxies ride it out on their in-process caches, billing
// events are buffered and delivered once Redis is back, new keys get 503 until then. Redis keeps its
// data across the restart (append-only file), as a Redis holding the billing queue must.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPrivateRedisGateway, type PrivateRedisGateway } from "./private-redis-gateway.ts";
import { chatRequest, startTraffic } from "./traffic.ts";

const KEY_CACHE_TTL_MS = 200;
let gateway: PrivateRedisGateway;

beforeAll(async () => {
  // A short key TTL, so cached keys expire during the outage and their last record is what serves them.
  gateway = await startPrivateRedisGateway({ redis: { persist: true }, proxyEnv: { KEY_CACHE_TTL_MS: String(KEY_CACHE_TTL_MS) } });
});
afterAll(async () => gateway?.close());

describe("Redis restarted during traffic", () => {
  it("known keys keep working, billing events are delivered once Redis is back, unseen keys get 503 meanwhile", async () => {
    const { proxy, redis } = gateway;
    const known = await gateway.newKey();
    const unseen = await gateway.newKey(); // minted, but this proxy never looks it up before the outage
    const nonexistent = `sk-${randomBytes(24).toString("hex")}`;
    const warm = await chatRequest(proxy.url, known);
    expect(warm.status).toBe(200);

    const traffic = startTraffic(proxy.url, known, 6);
    await expect.poll(() => traffic.results.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(20);

    await redis.stop();
    const downAt = Date.now();
    await expect.poll(() => proxy.services.redis.status, { timeout: 5_000 }).not.toBe("ready");
    const ready = await fetch(`${proxy.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ checks: { redis: false, routing: true } });

    // Requests finish and are billed while Redis is away: their events wait in the producer's buffer.
    // Some start after the known key's cache entry has expired, so its last record serves them.
    const staleFrom = downAt + 5 * KEY_CACHE_TTL_MS;
    await expect.poll(() => traffic.results.filter((result) => result.startedAt >= staleFrom).length, { timeout: 10_000 }).toBeGreaterThanOrEqual(30);
    expect(proxy.services.billing.pending).toBeGreaterThan(0);

    // A key the proxy has never seen cannot be checked: 503, never a false 200 or 401.
    for (const key of [unseen, nonexistent]) {
      const refused = await gateway.models(key);
      expect(refused.status).toBe(503);
      expect(refused.body).toMatchObject({ type: "error", error: { type: "overloaded_error", code: "dependency_unavailable" }, request_id: refused.requestId });
      expect(refused.shouldRetry).toBe("false");
    }

    await redis.restart();
    const upAt = Date.now();

    // Until the proxy has reconnected the unseen key may still get 503; then it works. Nothing else.
    const unseenStatuses: number[] = [];
    await expect
      .poll(async () => {
        const { status } = await gateway.models(unseen);
        unseenStatuses.push(status);
        return status;
      }, { timeout: 10_000, interval: 50 })
      .toBe(200);
    expect(unseenStatuses.slice(0, -1).filter((status) => status !== 503)).toEqual([]);
    expect((await gateway.models(nonexistent)).status).toBe(401);

    await expect.poll(() => traffic.results.filter((result) => result.startedAt >= upAt).length, { timeout: 10_000 }).toBeGreaterThanOrEqual(20);
    const results = await traffic.stop();

    // Every request of the traffic succeeded, before, during and after the outage.
    expect(results.filter((result) => result.status !== 200 || !result.complete)).toEqual([]);
    const servedDuringOutage = results.filter((result) => result.startedAt >= downAt && result.finishedAt <= upAt);
    expect(servedDuringOutage.length).toBeGreaterThanOrEqual(30);

    // Every one of them has exactly one billing job on the queue, and nothing else was billed.
    await proxy.services.billing.flush();
    expect(proxy.services.billing.pending).toBe(0);
    expect(proxy.services.billing.dropped).toBe(0);
    const jobs = await gateway.jobsByRequest();
    const expected = [warm, ...results].map((result) => result.requestId);
    expect(expected.filter((requestId) => jobs.get(requestId) !== 1)).toEqual([]);
    expect(jobs.size).toBe(expected.length);
  });
});
