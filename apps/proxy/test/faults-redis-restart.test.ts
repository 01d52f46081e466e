// Redis restarted during traffic (issue 8, contract sections 13 and 14): keys without limits ride
// it out on the proxy's key cache; a key with limits is served only from the lease this process
// holds, else refused 503 with retry-after (never admitted unchecked); billing events are buffered
// and delivered once Redis is back; new keys get 503 until then. Redis keeps its data across the
// restart (append-only file), as a Redis holding the billing queue must.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPrivateRedisGateway, type PrivateRedisGateway } from "./private-redis-gateway.ts";
import { chatRequest, startTraffic, type TrafficResult } from "./traffic.ts";

const KEY_CACHE_TTL_MS = 200;
/** Small leases: what the ones held when Redis goes can still admit is a small, countable number. */
const LEASE_REQUESTS = 20;
const LEASE_MS = 1_000;
let gateway: PrivateRedisGateway;

beforeAll(async () => {
  // A short key TTL, so cached keys expire during the outage and their last record is what serves them.
  gateway = await startPrivateRedisGateway({
    redis: { persist: true },
    proxyEnv: { KEY_CACHE_TTL_MS: String(KEY_CACHE_TTL_MS), LIMIT_LEASE_REQUESTS: String(LEASE_REQUESTS), LIMIT_LEASE_MS: String(LEASE_MS) },
  });
});
afterAll(async () => gateway?.close());

const startedFrom = (results: TrafficResult[], from: number) => results.filter((result) => result.startedAt >= from);

describe("Redis restarted during traffic", () => {
  it("keys without limits keep working, limited keys are served from held leases or refused 503, billing events are delivered once Redis is back, unseen keys get 503 meanwhile", async () => {
    const { proxy, redis } = gateway;
    const free = await gateway.newKey({ limits: false });
    const limited = await gateway.newKey({ quotaNano: 1_000_000_000_000n }); // RPM, TPM and a quota: its lease holds a slice
    const unseen = await gateway.newKey(); // minted, but this proxy never looks it up before the outage
    const nonexistent = `sk-${randomBytes(24).toString("hex")}`;
    const warm = [await chatRequest(proxy.url, free), await chatRequest(proxy.url, limited)];
    expect(warm.map((result) => result.status)).toEqual([200, 200]);

    const traffic = startTraffic(proxy.url, free, 4);
    const limitedTraffic = startTraffic(proxy.url, limited, 2);
    await expect.poll(() => traffic.results.length + limitedTraffic.results.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(40);

    await redis.stop();
    const downAt = Date.now();
    await expect.poll(() => proxy.services.redis.status, { timeout: 5_000 }).not.toBe("ready");
    const ready = await fetch(`${proxy.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ checks: { redis: false, routing: true } });

    // Requests finish and are billed while Redis is away: their events wait in the producer's buffer.
    // Some start after the keys' cache entries have expired, so their last records serve them.
    const staleFrom = downAt + Math.max(5 * KEY_CACHE_TTL_MS, LEASE_MS);
    await expect.poll(() => startedFrom(traffic.results, staleFrom).length, { timeout: 10_000 }).toBeGreaterThanOrEqual(30);
    await expect.poll(() => startedFrom(limitedTraffic.results, staleFrom).length, { timeout: 10_000 }).toBeGreaterThanOrEqual(30);
    expect(proxy.services.billing.pending).toBeGreaterThan(0);

    // The limited key, its lease over: refused with the envelope and a retry-after, never a 401.
    const refused = await gateway.chat(limited);
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({ error: { type: "overloaded_error", code: "dependency_unavailable" } });
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);

    // A key the proxy has never seen cannot be checked: 503, never a false 200 or 401.
    for (const key of [unseen, nonexistent]) {
      const unknown = await gateway.models(key);
      expect(unknown.status).toBe(503);
      expect(unknown.body).toMatchObject({ type: "error", error: { type: "overloaded_error", code: "dependency_unavailable" }, request_id: unknown.requestId });
      expect(unknown.shouldRetry).toBe("false");
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

    // The limited key is admitted again, no restart of the proxy.
    await expect.poll(() => startedFrom(limitedTraffic.results, upAt).filter((result) => result.status === 200).length, { timeout: 10_000 }).toBeGreaterThanOrEqual(20);
    await expect.poll(() => startedFrom(traffic.results, upAt).length, { timeout: 10_000 }).toBeGreaterThanOrEqual(20);
    const results = await traffic.stop();
    const limitedResults = await limitedTraffic.stop();

    // Every request of the key without limits succeeded, before, during and after the outage.
    expect(results.filter((result) => result.status !== 200 || !result.complete)).toEqual([]);
    const servedDuringOutage = results.filter((result) => result.startedAt >= downAt && result.finishedAt <= upAt);
    expect(servedDuringOutage.length).toBeGreaterThanOrEqual(30);

    // The limited key: a full 200 or a 503, nothing else. While Redis was away only the leases held
    // when it went admitted (the live one, and at most one more whose grant was on its way back);
    // once they were over (a lease lives LEASE_MS at most), nothing until Redis was back.
    expect(limitedResults.filter((result) => !(result.status === 503 || (result.status === 200 && result.complete)))).toEqual([]);
    const duringOutage = limitedResults.filter((result) => result.startedAt >= downAt && result.startedAt < upAt);
    expect(duringOutage.filter((result) => result.status === 200).length).toBeLessThanOrEqual(2 * LEASE_REQUESTS);
    expect(duringOutage.filter((result) => result.startedAt >= downAt + LEASE_MS && result.status === 200)).toEqual([]);
    // Once one was admitted after the restart, every later one is.
    const firstBack = limitedResults.find((result) => result.startedAt >= upAt && result.status === 200);
    expect(firstBack).toBeDefined();
    expect(startedFrom(limitedResults, firstBack!.finishedAt).filter((result) => result.status !== 200)).toEqual([]);

    // Every 200 has exactly one billing job on the queue, a refused request none, and nothing else was billed.
    await proxy.services.billing.flush();
    expect(proxy.services.billing.pending).toBe(0);
    expect(proxy.services.billing.dropped).toBe(0);
    const jobs = await gateway.jobsByRequest();
    const served = [...warm, ...results, ...limitedResults].filter((result) => result.status === 200).map((result) => result.requestId);
    expect(served.filter((requestId) => jobs.get(requestId) !== 1)).toEqual([]);
    expect(jobs.size).toBe(served.length);
  });
});
