// "Reserve the worst case, admit only what fits" (contract section 14) against a real Redis: three
// LimitStores on three connections stand for three proxy replicas, with leases on. Whatever the
// limits, the reservations, the tokens and the concurrency, what is admitted fits: the quota, the
// budget, the TPM (with the tokens of requests in flight) and the RPM are never passed, and once
// everything has settled nothing stays held.
import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveTestServices } from "@gateway/testing";
import { budgetCounter, LimitStore, RATE_WINDOW_MS, type AdmitInput, type AdmitResult } from "./limit-store.ts";
import { rateWindowRoom } from "./rate-window-room.ts";

let redis: Redis;
const replicas: Redis[] = [];
const prefix = `test-${randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  const { redisUrl } = await resolveTestServices();
  redis = new Redis(redisUrl);
  for (let i = 0; i < 3; i += 1) replicas.push(new Redis(redisUrl));
  await Promise.all(replicas.map((client) => client.ping()));
});
afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  for (const client of replicas) client.disconnect();
  redis.disconnect();
});

const newKey = () => `key_${randomUUID()}`;
const tokensInWindow = async (limits: LimitStore, keyId: string) => Number((await redis.get(limits.keys.tokenWindow(keyId, Math.floor(Date.now() / RATE_WINDOW_MS)))) ?? "0");

/** Lets other lanes run for `turns` event-loop turns (a request's time upstream, without a clock). */
async function turns(count: number): Promise<void> {
  for (let i = 0; i < count; i += 1) await new Promise((resolve) => setImmediate(resolve));
}

/**
 * Limits and reservations at one scale: small ones, and ones past 2^53 (quotas up to the contract's
 * 1,000,000,000 USD, 10^18 nano-USD), where a double in the script would round away a few nano-USD.
 */
const scaled = fc.constantFrom(1n, 10n ** 11n).chain((scale) =>
  fc.record({
    quotaNano: fc.option(fc.bigInt({ min: 0n, max: 2_000_000n * scale }), { nil: null, freq: 2 }),
    budgetNano: fc.option(fc.bigInt({ min: 0n, max: 2_000_000n * scale }), { nil: null, freq: 2 }),
    reservations: fc.array(fc.bigInt({ min: 0n, max: 200_000n * scale }), { minLength: 100, maxLength: 100 }),
  }),
);
const run = fc.record({
  money: scaled,
  tpm: fc.option(fc.integer({ min: 1, max: 20_000 }), { nil: null, freq: 2 }),
  rpm: fc.option(fc.integer({ min: 1, max: 400 }), { nil: null, freq: 2 }),
  requests: fc.array(
    fc.record({
      tokens: fc.integer({ min: 0, max: 1_500 }),
      replica: fc.integer({ min: 0, max: 2 }),
      upstreamTurns: fc.integer({ min: 0, max: 3 }),
    }),
    { minLength: 1, maxLength: 100 },
  ),
  concurrency: fc.integer({ min: 1, max: 100 }),
  leaseRequests: fc.constantFrom(0, 4, 50, 200),
  renewAhead: fc.boolean(),
});

describe("admit only what fits, on three replicas sharing one Redis", () => {
  it("never passes the quota, the budget, the TPM (in-flight tokens counted) or the RPM; settlement releases everything; what is left can still be used", async () => {
    await fc.assert(
      fc.asyncProperty(run, async ({ money, tpm, rpm, requests, concurrency, leaseRequests, renewAhead }) => {
        const { quotaNano, budgetNano } = money;
        // One rate window for the whole run: a sliding window that moves on legitimately admits more.
        await rateWindowRoom(10_000);
        const keyId = newKey();
        const stores = replicas.map((client) => new LimitStore(client, prefix, { settleBatchMs: 1, leaseRequests, leaseMs: 60_000, renewAhead }));
        const budget = budgetNano === null ? null : { limitNano: budgetNano, period: "day" as const };
        let admittedNano = 0n;
        let admittedTokens = 0;
        let admittedCount = 0;
        const settled: Promise<void>[] = [];
        let next = 0;
        const lane = async () => {
          while (next < requests.length) {
            const index = next++;
            const request = { ...requests[index]!, reservationNano: money.reservations[index]! };
            const store = stores[request.replica]!;
            const input: AdmitInput = { keyId, rpm, tpm, quotaNano, budget, reservationNano: request.reservationNano, tokens: request.tokens };
            const answer: AdmitResult = await store.admit(input);
            if (answer.verdict !== "admitted") continue;
            const heldNano = quotaNano !== null || budget !== null ? request.reservationNano : 0n;
            const heldTokens = tpm !== null ? request.tokens : 0;
            admittedNano += heldNano;
            admittedTokens += heldTokens;
            admittedCount += 1;
            // The invariants hold at every admission, not only at the end.
            if (quotaNano !== null) expect(admittedNano).toBeLessThanOrEqual(quotaNano);
            if (budgetNano !== null) expect(admittedNano).toBeLessThanOrEqual(budgetNano);
            if (tpm !== null) expect(admittedTokens).toBeLessThanOrEqual(tpm);
            if (rpm !== null) expect(admittedCount).toBeLessThanOrEqual(rpm);
            await turns(request.upstreamTurns);
            // The worst case: it costs its whole reservation and uses every token it held.
            settled.push(store.settle({ keyId, tokens: heldTokens, reservationNano: heldNano, costNano: heldNano, hasQuota: quotaNano !== null, budget: answer.budget, lease: answer.lease, heldTokens, tokensHolder: answer.tokensHolder }));
          }
        };
        await Promise.all(Array.from({ length: concurrency }, lane));
        await Promise.all(stores.map((store) => store.close()));
        await Promise.all(settled);

        // Settled: spend is exactly what was admitted, nothing is reserved or held in flight.
        const observer = stores[0]!;
        if (quotaNano !== null) expect(await observer.readQuota(keyId)).toEqual({ spent: admittedNano, reserved: 0n });
        if (budget !== null) expect(await observer.readBudget(keyId, budgetCounter("day", Date.now()))).toEqual({ spent: admittedNano, reserved: 0n });
        expect(await observer.readTokensHeld(keyId)).toBe(0);
        if (tpm !== null) expect(await tokensInWindow(observer, keyId)).toBe(admittedTokens);

        // Nothing is refused that fits: a request of exactly what is left is admitted (a key whose
        // quota or budget is spent to the nano refuses even a request that reserves nothing).
        const left = [quotaNano, budgetNano].filter((limit) => limit !== null).map((limit) => limit - admittedNano);
        const fits = left.every((room) => room > 0n) && (rpm === null || admittedCount < rpm);
        const last = await new LimitStore(redis, prefix).admit({
          keyId, rpm, tpm, quotaNano, budget,
          reservationNano: left.length > 0 && fits ? left.reduce((least, room) => (room < least ? room : least)) : 0n,
          tokens: tpm === null ? 0 : tpm - admittedTokens,
        });
        expect(last.verdict === "admitted").toBe(fits);
      }),
      { numRuns: 250 },
    );
  }, 60_000);

  it("a TPM holds the tokens of requests in flight: sixty concurrent 500-token requests on a 1,000-token key, two admitted", async () => {
    const keyId = newKey();
    await rateWindowRoom(10_000);
    const stores = replicas.map((client) => new LimitStore(client, prefix, { settleBatchMs: 1, leaseRequests: 200, leaseMs: 60_000, renewAhead: true }));
    const input: AdmitInput = { keyId, rpm: null, tpm: 1_000, quotaNano: null, budget: null, reservationNano: 0n, tokens: 500 };
    const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => stores[i % 3]!.admit(input)));
    const admitted = answers.filter((answer) => answer.verdict === "admitted");
    expect(admitted).toHaveLength(2);
    expect(answers.filter((answer) => answer.verdict !== "admitted").every((answer) => answer.verdict === "tokens_limited")).toBe(true);
    expect(await stores[0]!.readTokensHeld(keyId)).toBe(1_000);
    // Each used 300 of its 500: the window books 600, nothing stays in flight, and a 500-token
    // request no longer fits (600 + 500 > 1,000) while a 400-token one does.
    await Promise.all(admitted.map((answer) => stores[answers.indexOf(answer) % 3]!.settle({ keyId, tokens: 300, reservationNano: 0n, costNano: 0n, hasQuota: false, budget: null, lease: answer.lease, heldTokens: 500, tokensHolder: answer.tokensHolder })));
    await Promise.all(stores.map((store) => store.close()));
    expect(await stores[0]!.readTokensHeld(keyId)).toBe(0);
    expect(await tokensInWindow(stores[0]!, keyId)).toBe(600);
    const alone = new LimitStore(redis, prefix);
    expect((await alone.admit(input)).verdict).toBe("tokens_limited");
    expect((await alone.admit({ ...input, tokens: 400 })).verdict).toBe("admitted");
  });

  it("a request larger than the whole TPM is never admitted, even on an idle key", async () => {
    const limits = new LimitStore(redis, prefix);
    const answer = await limits.admit({ keyId: newKey(), rpm: null, tpm: 100, quotaNano: null, budget: null, reservationNano: 0n, tokens: 101 });
    expect(answer.verdict).toBe("tokens_limited");
  });
});
