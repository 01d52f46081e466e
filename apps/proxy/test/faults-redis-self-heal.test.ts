// Redis loses everything under the gateway's prefix during live traffic (contract section 13):
// the control plane notices and restores every record and the routing snapshot within 10 s, with
// no operator; running proxies and one started during the gap serve again without a restart, and
// no valid key is ever answered 401, nor a configured model 404. Redis answers throughout, so a key
// with limits is checked (on the emptied counters) and served all along, as is a key without.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "@gateway/logger";
import { RedisWatchdog } from "@gateway/control-plane";
import { loadProxyConfig } from "../src/config.ts";
import { startProxy, type RunningProxy } from "../src/server.ts";
import { startPrivateRedisGateway, type PrivateRedisGateway } from "./private-redis-gateway.ts";
import { chatRequest, startTraffic } from "./traffic.ts";

let gateway: PrivateRedisGateway;
let watchdog: RedisWatchdog;
let late: RunningProxy | null = null;

beforeAll(async () => {
  gateway = await startPrivateRedisGateway({ redis: { persist: false }, proxyEnv: { KEY_CACHE_TTL_MS: "200" } });
  watchdog = new RedisWatchdog(gateway.controlPlane, 500);
  watchdog.start();
});
afterAll(async () => {
  await watchdog?.stop();
  await late?.close();
  await gateway?.close();
});

/** Deletes every key under the gateway's prefix, as a Redis that came back empty would have none. */
async function emptyThePrefix(): Promise<number> {
  const { redis } = gateway.controlPlane;
  const prefix = gateway.controlPlane.config.REDIS_PREFIX;
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  return keys.length;
}

describe("Redis emptied under live traffic heals itself", () => {
  it("records and snapshot are back within 10 s; known keys never get 401; a proxy started in the gap serves once they are", async () => {
    const { proxy } = gateway;
    const known = await gateway.newKey();
    const free = await gateway.newKey({ limits: false });
    const unseen = await gateway.newKey();
    const nonexistent = `sk-${randomBytes(24).toString("hex")}`;
    expect((await chatRequest(proxy.url, known)).status).toBe(200);
    expect((await chatRequest(proxy.url, free)).status).toBe(200);
    const traffic = startTraffic(proxy.url, known, 4);
    const freeTraffic = startTraffic(proxy.url, free, 2);
    await expect.poll(() => traffic.results.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(20);

    await watchdog.stop();
    expect(await emptyThePrefix()).toBeGreaterThan(3);
    const emptiedAt = Date.now();
    // In the gap: a proxy starting now finds no routes. It starts (not ready), and a configured
    // model is 503 with retry-after, never 404; a key it cannot vouch for is 503, never 401.
    late = await startProxy(loadProxyConfig({ PORT: "0", METRICS_PORT: "0", REDIS_URL: gateway.redis.url, REDIS_PREFIX: gateway.controlPlane.config.REDIS_PREFIX }), createLogger({ name: "late", level: "silent" }));
    expect((await fetch(`${late.url}/readyz`)).status).toBe(503);
    for (const key of [known, free, unseen]) {
      const answer = await fetch(`${late.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "gpt-test", max_tokens: 8, messages: [{ role: "user", content: "gap" }] }),
      });
      expect(answer.status).toBe(503);
      expect(Number(answer.headers.get("retry-after"))).toBeGreaterThan(0);
    }
    expect((await gateway.models(unseen)).status).toBe(503);

    watchdog.start();
    await expect.poll(() => gateway.controlPlane.records.readSnapshot(), { timeout: 10_000, interval: 50 }).not.toBeNull();
    const restoredIn = Date.now() - emptiedAt;
    expect(restoredIn).toBeLessThan(10_000);
    // The snapshot is the rebuild's first write: the watchdog counts its rebuild once all of it is in.
    await expect.poll(() => watchdog.rebuilds, { timeout: 5_000, interval: 20 }).toBe(1);

    // Both proxies serve again without a restart: the late one loads the routes by itself.
    await expect.poll(async () => (await fetch(`${late!.url}/readyz`)).status, { timeout: 5_000, interval: 100 }).toBe(200);
    for (const url of [proxy.url, late.url]) {
      expect((await chatRequest(url, known)).status).toBe(200);
      expect((await chatRequest(url, free)).status).toBe(200);
      expect((await chatRequest(url, unseen)).status).toBe(200);
      expect((await chatRequest(url, nonexistent)).status).toBe(401);
    }
    const results = await traffic.stop();
    const freeResults = await freeTraffic.stop();
    // The known keys rode it out on their last records: never 401, never 503, every answer a full one.
    for (const served of [results, freeResults]) {
      expect(served.filter((result) => result.status !== 200 || !result.complete)).toEqual([]);
      expect(served.filter((result) => result.startedAt >= emptiedAt).length).toBeGreaterThan(10);
    }
  }, 40_000);

  it("a control plane that finds the snapshot present does nothing", async () => {
    const before = watchdog.rebuilds;
    await watchdog.check();
    expect(watchdog.rebuilds).toBe(before);
  });
});
