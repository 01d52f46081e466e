// The limiter against a real Redis (contract section 14, "never admitted unchecked"): a number no
// counter can hold is the request's 400, a request above the TPM its 429, Redis away a 503 unless
// the process holds a lease; count_tokens is refused on a spent key; what an admission holds is
// described for the journal and given back at the end.
import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "@gateway/logger";
import { budgetCounter, LimitStore, releaseOrphanReservation, type KeyRecord, type ServerOptionRecord } from "@gateway/redis-store";
import { TestRedis } from "@gateway/testing";
import type { EndpointName, ParsedRequest } from "../core/wire-format.ts";
import { outputBound } from "../core/output-bound.ts";
import { Limiter, type Admission } from "./limiter.ts";
import { requestBoundNano, unitPrices } from "./request-bound.ts";

const silent = createLogger({ name: "test", level: "silent" });
const testRedis = new TestRedis();
const { prefix } = testRedis;
let redis: Redis;

beforeAll(async () => {
  redis = await testRedis.start();
});
afterAll(() => testRedis.stop());

/** A proxy process's limiter: its own connection, failing fast once closed (as the proxy's does). */
async function processLimiter(leaseRequests = 0) {
  const client = testRedis.connect({ enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true });
  await client.connect();
  const store = new LimitStore(client, prefix, { settleBatchMs: 1, leaseRequests, leaseMs: 60_000 });
  return { limiter: new Limiter(store, silent), store, client, calls: countScripts(client) };
}

/** Script calls (EVAL/EVALSHA) the connection sends: the limit check's round trips. */
function countScripts(client: Redis): () => number {
  let calls = 0;
  const send = client.sendCommand.bind(client);
  client.sendCommand = ((command: { name: string }) => {
    if (command.name === "evalsha" || command.name === "eval") calls += 1;
    return send(command as never);
  }) as typeof client.sendCommand;
  return () => calls;
}

function keyRecord(limits: Partial<Pick<KeyRecord, "quotaNano" | "rpm" | "tpm" | "budget">>): KeyRecord {
  return { id: `key_${randomUUID()}`, vendorId: "vendor", name: "limits", prefix: "sk-test", serverOption: "standard", status: "active", expiresAt: null, quotaNano: null, rpm: null, tpm: null, budget: null, secretExpiresAt: null, revision: 0, ...limits };
}

// 3 USD per million input tokens, 15 per million output (scaled: 1/10000 pico-USD).
const option: ServerOptionRecord = {
  name: "standard",
  models: ["m"],
  prices: { m: { inputPrice: "30000000000", outputPrice: "150000000000", cachedInputPrice: "3000000000", cacheWritePrice: "0", cacheWrite1hPrice: "0", imagePrice: "0", requestPrice: "0", webSearchPrice: "0", tiers: [] } },
  rpm: null,
  tpm: null,
  strictParams: false,
};

/** A request as its route hands it to the limiter: with its one output bound (`bound`). */
const chat = (body: Record<string, unknown>, bound: number): ParsedRequest => ({ body: { model: "m", messages: [], ...body }, model: "m", stream: false, outputBound: bound });
/** The bound its route computes, for a model whose maximum is the largest count a record can hold. */
const routed = (body: Record<string, unknown>, endpoint: EndpointName): ParsedRequest => chat(body, outputBound(body, endpoint, Number.MAX_SAFE_INTEGER, "lower"));
const requestId = () => `req_${randomUUID()}`;
const BYTES = 200;

describe("never admitted unchecked", () => {
  it("an output limit whose worst case no counter can hold is the request's 400 naming the field: no script call, nothing held", async () => {
    const { limiter, store, calls } = await processLimiter(20);
    const key = keyRecord({ quotaNano: "10000000000", tpm: 10_000_000 });
    // The request: the field the API obeys, 1e15 tokens at 15,000 nano-USD each.
    const refused = await limiter.admit(requestId(), key, option, "m", routed({ max_tokens: 500, max_completion_tokens: 1e15 }, "chat.completions"), BYTES, "chat.completions");
    expect(refused.refusal).toMatchObject({ status: 400, type: "invalid_request_error", param: "max_completion_tokens" });
    const fields = fc.constantFrom<[EndpointName, string]>(["chat.completions", "max_tokens"], ["chat.completions", "max_completion_tokens"], ["messages", "max_tokens"], ["responses", "max_output_tokens"]);
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1e15, max: Number.MAX_SAFE_INTEGER }), fields, async (huge, [endpoint, field]) => {
        const id = requestId();
        const answer: Admission = await limiter.admit(id, key, option, "m", routed({ [field]: huge }, endpoint), BYTES, endpoint);
        // Never admitted: either its own 400 (naming the field) or a refusal of the key's limits.
        expect(answer.refusal).not.toBeNull();
        if (answer.refusal!.status === 400) expect(answer.refusal!.param).toBe(field);
        else expect(answer.refusal!.status).toBe(429);
        expect(limiter.reservation(id)).toBeNull();
      }),
      { numRuns: 200 },
    );
    expect(calls()).toBe(0);
    expect(await store.readQuota(key.id)).toEqual({ spent: 0n, reserved: 0n });
    expect(await store.readTokensHeld(key.id)).toBe(0);
  });

  it("the route's output bound is what is reserved and held; a request above the TPM is refused without a call", async () => {
    const { limiter, store, calls } = await processLimiter();
    const key = keyRecord({ quotaNano: "10000000000", tpm: 1_000 });
    const id = requestId();
    const request = chat({ max_tokens: 1e15 }, 500);
    expect((await limiter.admit(id, key, option, "m", request, BYTES, "chat.completions")).refusal).toBeNull();
    const held = limiter.reservation(id)!;
    expect(held).toMatchObject({ keyId: key.id, reservationNano: requestBoundNano(request, BYTES, unitPrices(option, "m")!, "chat.completions").toString(), tokens: BYTES / 4 + 500, hasQuota: true, budget: null, leaseId: null, processTag: store.processTag });
    expect(await store.readTokensHeld(key.id)).toBe(550);
    // 550 held: another 550 would pass the 1,000.
    const second = await limiter.admit(requestId(), key, option, "m", request, BYTES, "chat.completions");
    expect(second.refusal).toMatchObject({ status: 429, code: "rate_limit_exceeded" });
    const tooLarge = await limiter.admit(requestId(), key, option, "m", chat({}, 1_000), BYTES, "chat.completions");
    expect(tooLarge.refusal).toMatchObject({ status: 429, code: "rate_limit_exceeded" });
    expect(calls()).toBe(2);
    // A request that ends without a billing event gives everything back.
    limiter.release(id);
    await expect.poll(() => store.readQuota(key.id)).toEqual({ spent: 0n, reserved: 0n });
    expect(await store.readTokensHeld(key.id)).toBe(0);
  });

  it("Redis away: admitted from a lease the process holds, else 503 overloaded_error with retry-after", async () => {
    const { limiter, client } = await processLimiter(10);
    const [leased, other] = [keyRecord({ quotaNano: "100000000000", rpm: 10_000 }), keyRecord({ quotaNano: "100000000000" })];
    const request = chat({}, 100);
    expect((await limiter.admit(requestId(), leased, option, "m", request, BYTES, "chat.completions")).refusal).toBeNull();
    client.disconnect();
    const fromLease = limiter.admit(requestId(), leased, option, "m", request, BYTES, "chat.completions");
    expect(fromLease).not.toBeInstanceOf(Promise);
    expect((fromLease as Admission).refusal).toBeNull();
    for (const answer of [await limiter.admit(requestId(), other, option, "m", request, BYTES, "chat.completions"), await limiter.admitRequestOnly(requestId(), other, option)]) {
      expect(answer.refusal).toMatchObject({ status: 503, type: "overloaded_error", code: "dependency_unavailable", retryAfter: 1 });
    }
  });
});

describe("count_tokens (admitRequestOnly)", () => {
  it("takes an RPM slot, reserves nothing, and is refused once the quota or the budget is spent", async () => {
    const { limiter, store } = await processLimiter(20);
    const key = keyRecord({ quotaNano: "1000", rpm: 3, budget: { limitNano: "500", period: "day" } });
    expect((await limiter.admitRequestOnly(requestId(), key, option)).refusal).toBeNull();
    expect(await store.readQuota(key.id)).toEqual({ spent: 0n, reserved: 0n });
    const counter = budgetCounter("day", Date.now());
    await store.setBudgetSpent(key.id, counter, 500n);
    expect((await limiter.admitRequestOnly(requestId(), key, option)).refusal).toMatchObject({ status: 429, code: "budget_exceeded" });
    await store.setSpent(key.id, 1_000n);
    expect((await limiter.admitRequestOnly(requestId(), key, option)).refusal).toMatchObject({ status: 429, code: "insufficient_quota" });
    // Room again: the second of its three slots; then the RPM refuses.
    await store.setSpent(key.id, 0n);
    await store.setBudgetSpent(key.id, counter, 0n);
    expect((await limiter.admitRequestOnly(requestId(), key, option)).refusal).toBeNull();
    expect((await limiter.admitRequestOnly(requestId(), key, option)).refusal).toBeNull();
    expect((await limiter.admitRequestOnly(requestId(), key, option)).refusal).toMatchObject({ status: 429, code: "rate_limit_exceeded" });
    expect(await store.readQuota(key.id)).toEqual({ spent: 0n, reserved: 0n });
  });
});

describe("the journal's description", () => {
  it("is JSON, and a sweeper releases it exactly once when the process dies", async () => {
    const { limiter, store, client } = await processLimiter();
    const key = keyRecord({ quotaNano: "10000000000", tpm: 100_000, budget: { limitNano: "10000000000", period: "week" } });
    const id = requestId();
    expect((await limiter.admit(id, key, option, "m", chat({}, 300), BYTES, "chat.completions")).refusal).toBeNull();
    const journal = JSON.parse(JSON.stringify(limiter.reservation(id)));
    expect(journal.budget).toEqual(budgetCounter("week", Date.now()));
    client.disconnect(); // killed before the request settles
    expect(await releaseOrphanReservation(redis, prefix, journal, 1_234n, 42)).toBe(true);
    expect(await releaseOrphanReservation(redis, prefix, journal, 1_234n, 42)).toBe(false);
    const observer = new LimitStore(redis, prefix);
    expect(await observer.readQuota(key.id)).toEqual({ spent: 1_234n, reserved: 0n });
    expect(await observer.readBudget(key.id, journal.budget)).toEqual({ spent: 1_234n, reserved: 0n });
    expect(await observer.readTokensHeld(key.id)).toBe(0);
    expect(store.processTag).toBe(journal.processTag);
  });
});
