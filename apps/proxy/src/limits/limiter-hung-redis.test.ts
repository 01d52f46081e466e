// The limiter against a Redis that hangs with its socket open (SIGSTOP of a private redis-server):
// an admission call waits a bounded time, then the request is refused 503 with retry-after; when
// Redis runs again and admits the request after all, the limiter gives its reservation and its
// tokens back at once, so nothing stays held for a request that was never served.
import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "@gateway/logger";
import { LimitStore, type KeyRecord, type ServerOptionRecord } from "@gateway/redis-store";
import { startPrivateRedis, type PrivateRedis } from "@gateway/testing";
import type { ParsedRequest } from "../core/wire-format.ts";
import { Limiter } from "./limiter.ts";

const silent = createLogger({ name: "test", level: "silent" });
const prefix = `test-${randomUUID().slice(0, 8)}`;
let server: PrivateRedis;
let observer: Redis;
let client: Redis;
let frozenPid: number | null = null;

beforeAll(async () => {
  server = await startPrivateRedis({ persist: false });
  observer = new Redis(server.url);
  // The proxy's kind of connection (fail fast), with no command timeout of its own: only the
  // limiter bounds the wait, and the late reply reaches it.
  client = new Redis(server.url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true });
  await client.connect();
});
afterAll(async () => {
  if (frozenPid !== null) process.kill(frozenPid, "SIGCONT");
  client?.disconnect();
  observer?.disconnect();
  await server?.destroy();
});

const option: ServerOptionRecord = {
  name: "standard",
  models: ["m"],
  prices: { m: { inputPrice: "30000000000", outputPrice: "150000000000", cachedInputPrice: "3000000000", cacheWritePrice: "0", cacheWrite1hPrice: "0", imagePrice: "0", requestPrice: "0", webSearchPrice: "0", tiers: [] } },
  rpm: null,
  tpm: null,
  strictParams: false,
};
const key: KeyRecord = { id: `key_${randomUUID()}`, vendorId: "vendor", name: "hung", prefix: "sk-test", serverOption: "standard", status: "active", expiresAt: null, quotaNano: "100000000000", rpm: 1_000, tpm: 1_000_000, budget: null, secretExpiresAt: null, revision: 0 };
const request: ParsedRequest = { body: { model: "m", messages: [] }, model: "m", stream: false, outputBound: 100 };

describe("Redis hung with its socket open", () => {
  it("the admission is refused 503 with retry-after; an admission Redis makes later is given back", async () => {
    const store = new LimitStore(client, prefix, { settleBatchMs: 1 });
    const limiter = new Limiter(store, silent);
    const reader = new LimitStore(observer, prefix);
    expect((await limiter.admitRequestOnly(`req_${randomUUID()}`, key, option)).refusal).toBeNull();

    frozenPid = Number(/process_id:(\d+)/.exec(await observer.info("server"))![1]);
    process.kill(frozenPid, "SIGSTOP");
    const id = `req_${randomUUID()}`;
    const answer = await limiter.admit(id, key, option, "m", request, 200, "chat.completions");
    expect(answer.refusal).toMatchObject({ status: 503, type: "overloaded_error", code: "dependency_unavailable", retryAfter: 1 });
    expect(limiter.reservation(id)).toBeNull();

    // Redis runs the call it was sent (the request is admitted there), and the limiter releases it.
    process.kill(frozenPid, "SIGCONT");
    frozenPid = null;
    await expect.poll(() => reader.readQuota(key.id), { timeout: 5_000, interval: 50 }).toEqual({ spent: 0n, reserved: 0n });
    await expect.poll(() => reader.readTokensHeld(key.id), { timeout: 5_000, interval: 50 }).toBe(0);
    // The late admission did reach Redis: the window counts three requests, the first, it and this one.
    const again = await limiter.admit(`req_${randomUUID()}`, key, option, "m", request, 200, "chat.completions");
    expect(again.refusal).toBeNull();
    expect(again.headers["x-ratelimit-remaining-requests"]).toBe(String(key.rpm! - 3));
  });
});
