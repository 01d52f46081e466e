// Redis restarted EMPTY during traffic (no persistence, or a flushed instance): until the control
// plane rebuilds the records from Postgres (`rebuildRedis`, also run at every control-plane start),
// Redis answers but cannot say whether a key exists. Known keys keep working on their last record,
// other keys get 503 (never a false 401 or 200), and the proxy's buffered billing events still land.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rebuildRedis } from "@gateway/control-plane";
import { startPrivateRedisGateway, type PrivateRedisGateway } from "./private-redis-gateway.ts";
import { chatRequest, startTraffic } from "./traffic.ts";

const KEY_CACHE_TTL_MS = 200;
let gateway: PrivateRedisGateway;

beforeAll(async () => {
  gateway = await startPrivateRedisGateway({ redis: { persist: false }, proxyEnv: { KEY_CACHE_TTL_MS: String(KEY_CACHE_TTL_MS) } });
});
afterAll(async () => gateway?.close());

describe("Redis restarted empty during traffic", () => {
  it("known keys ride it out, other keys get 503 until the control plane's rebuild, then everything works", async () => {
    const { proxy, redis } = gateway;
    const known = await gateway.newKey();
    const unseen = await gateway.newKey();
    const nonexistent = `sk-${randomBytes(24).toString("hex")}`;
    expect((await chatRequest(proxy.url, known)).status).toBe(200);

    const traffic = startTraffic(proxy.url, known, 4);
    await expect.poll(() => traffic.results.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(20);

    await redis.restart();
    const upAt = Date.now();
    expect(await gateway.controlPlane.records.readSnapshot()).toBeNull();

    // The proxy is back on Redis, which now holds nothing: the known key's entry expires and is
    // re-read as missing, yet it keeps working; keys it cannot vouch for get 503.
    await expect.poll(async () => (await gateway.models(unseen)).status, { timeout: 10_000, interval: 50 }).toBe(503);
    const staleFrom = Date.now() + 5 * KEY_CACHE_TTL_MS;
    await expect.poll(() => traffic.results.filter((result) => result.startedAt >= staleFrom).length, { timeout: 10_000 }).toBeGreaterThanOrEqual(30);
    for (const key of [unseen, nonexistent]) {
      const refused = await gateway.models(key);
      expect(refused.status).toBe(503);
      expect(refused.body).toMatchObject({ type: "error", error: { type: "overloaded_error", code: "dependency_unavailable" } });
    }

    const duringOutage = await traffic.stop();
    expect(duringOutage.filter((result) => result.status !== 200 || !result.complete)).toEqual([]);

    // The rebuild writes the snapshot before the keys, so traffic pauses while it runs (see the
    // report of issue 8: the snapshot should be written last, as the store's "filled" mark).
    const rebuilt = await rebuildRedis(gateway.controlPlane);
    expect(rebuilt.keys).toBe(2);
    await expect.poll(async () => (await gateway.models(unseen)).status, { timeout: 5_000, interval: 50 }).toBe(200);
    expect((await gateway.models(nonexistent)).status).toBe(401);
    const after = startTraffic(proxy.url, known, 4);
    await expect.poll(() => after.results.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(20);
    const afterRebuild = await after.stop();
    expect(afterRebuild.filter((result) => result.status !== 200 || !result.complete)).toEqual([]);

    // Jobs already in the old Redis are gone with it (hence persistence for production); every
    // request made once the new one was up has exactly one job.
    await proxy.services.billing.flush();
    expect(proxy.services.billing.dropped).toBe(0);
    const jobs = await gateway.jobsByRequest();
    const afterUp = [...duringOutage, ...afterRebuild].filter((result) => result.startedAt >= upAt);
    expect(afterUp.length).toBeGreaterThanOrEqual(50);
    expect(afterUp.filter((result) => jobs.get(result.requestId) !== 1)).toEqual([]);
    expect([...jobs.values()].filter((count) => count !== 1)).toEqual([]);
  });
});
