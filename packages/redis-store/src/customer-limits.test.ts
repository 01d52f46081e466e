// A customer's limits over all its keys (contract section 19), in the key's own admission call:
// its budget, its prepaid wallet, its plan's rolling windows; several LimitStores on one Redis
// stand for proxy replicas.
import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Redis } from "ioredis";
import { resolveTestServices } from "@gateway/testing";
import { budgetCounter, LimitStore, type AdmitInput, type CustomerLimits } from "./limit-store.ts";
import { releaseOrphanReservation } from "./orphan-release.ts";
import { addWalletCredit, readCustomerBudget, readWallet, rebuildWalletCounters } from "./wallet.ts";

let redis: Redis;
let replicas: LimitStore[];
const prefix = `test-${randomUUID().slice(0, 8)}`;
const id = (kind: string) => `${kind}_${randomUUID().replaceAll("-", "")}`;

beforeAll(async () => {
  redis = new Redis((await resolveTestServices()).redisUrl);
  replicas = [0, 1, 2].map(() => new LimitStore(redis, prefix, { leaseRequests: 16 }));
});
afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

function input(keyId: string, customer: CustomerLimits, reservationNano: bigint, now?: number): AdmitInput {
  return { keyId, rpm: null, tpm: null, quotaNano: null, budget: null, reservationNano, customerId: customer.id, customer, ...(now !== undefined ? { now } : {}) };
}

/** Admits on `store` and settles at `cost` (when admitted); the verdict. */
async function spend(store: LimitStore, keyId: string, customer: CustomerLimits, reservation: bigint, cost: bigint, now?: number) {
  const admitted = await store.admit(input(keyId, customer, reservation, now));
  if (admitted.verdict === "admitted") {
    await store.settle({ keyId, customerId: customer.id, customer: admitted.customer, tokens: 1, reservationNano: reservation, costNano: cost, hasQuota: false, budget: null, ...(now !== undefined ? { now } : {}) });
  }
  return admitted;
}

describe("a customer's budget over its keys", () => {
  it("holds across three keys on three replicas under concurrency: spend never above the budget", async () => {
    const customer: CustomerLimits = { id: id("cus"), budget: { limitNano: 1_000_000n, period: "month" }, wallet: false, windows: [] };
    const keys = [id("key"), id("key"), id("key")];
    // Each request reserves 10,000 and costs between 5,000 and 10,000 (the reservation is its worst case).
    const verdicts = await Promise.all(
      Array.from({ length: 300 }, (_, index) => spend(replicas[index % 3]!, keys[index % 3]!, customer, 10_000n, 5_000n + BigInt((index * 37) % 5_001))),
    );
    const admitted = verdicts.filter((result) => result.verdict === "admitted").length;
    const refused = verdicts.filter((result) => result.verdict === "customer_budget_exhausted").length;
    expect(admitted + refused).toBe(300);
    expect(refused).toBeGreaterThan(0);
    const counter = budgetCounter("month", Date.now());
    const { spent, reserved } = await readCustomerBudget(redis, prefix, customer.id, counter);
    expect(reserved).toBe(0n);
    expect(spent).toBeLessThanOrEqual(1_000_000n);
    // Once spent past the last reservation's room, every key of the customer is refused.
    expect((await spend(replicas[0]!, id("key"), customer, 1_000_000n - spent + 1n, 0n)).verdict).toBe("customer_budget_exhausted");
  });

  it("a key without a customer is untouched by it, a customer without limits costs no customer argument", async () => {
    const customer: CustomerLimits = { id: id("cus"), budget: null, wallet: false, windows: [] };
    const keyId = id("key");
    const result = await replicas[0]!.admit(input(keyId, customer, 5n));
    expect(result.verdict).toBe("admitted");
    expect(result.customer).toBeUndefined();
  });
});

describe("a prepaid customer's wallet", () => {
  it("balance == credits - spend to the nano after 200 concurrent requests on three replicas; at zero balance_exhausted", async () => {
    const customer: CustomerLimits = { id: id("cus"), budget: null, wallet: true, windows: [] };
    expect((await spend(replicas[0]!, id("key"), customer, 0n, 0n)).verdict).toBe("balance_exhausted");
    await addWalletCredit(redis, prefix, customer.id, 1_500_000_000n);
    await addWalletCredit(redis, prefix, customer.id, 500_000_000n);
    const keys = [id("key"), id("key")];
    const costs: bigint[] = [];
    const results = await Promise.all(
      Array.from({ length: 200 }, async (_, index) => {
        const cost = 1_000_000n + BigInt((index * 7919) % 19_000_001);
        const result = await spend(replicas[index % 3]!, keys[index % 2]!, customer, 20_000_000n, cost);
        if (result.verdict === "admitted") costs.push(cost);
        return result.verdict;
      }),
    );
    expect(results.every((verdict) => verdict === "admitted" || verdict === "balance_exhausted")).toBe(true);
    const wallet = await readWallet(redis, prefix, customer.id);
    const spentSum = costs.reduce((sum, cost) => sum + cost, 0n);
    expect(wallet).toEqual({ creditedNano: 2_000_000_000n, spentNano: spentSum, reservedNano: 0n });
    expect(wallet.spentNano).toBeLessThanOrEqual(wallet.creditedNano);
    // The rebuild from Postgres's figures restores the same counters.
    await rebuildWalletCounters(redis, prefix, customer.id, 2_000_000_000n, spentSum);
    expect(await readWallet(redis, prefix, customer.id)).toEqual(wallet);
  });

  it("an orphan's release gives the wallet's reservation back and books its cost, once", async () => {
    const customer: CustomerLimits = { id: id("cus"), budget: null, wallet: true, windows: [] };
    await addWalletCredit(redis, prefix, customer.id, 1_000n);
    const keyId = id("key");
    const admitted = await replicas[1]!.admit(input(keyId, customer, 800n));
    expect(admitted.verdict).toBe("admitted");
    expect((await readWallet(redis, prefix, customer.id)).reservedNano).toBe(800n);
    const held = { requestId: id("req"), keyId, reservationNano: "800", tokens: 0, hasQuota: false, budget: null, leaseId: null, processTag: replicas[1]!.processTag, customerId: customer.id, customer: admitted.customer! };
    expect(await releaseOrphanReservation(redis, prefix, held, 300n, 0)).toBe(true);
    expect(await releaseOrphanReservation(redis, prefix, held, 300n, 0)).toBe(false);
    expect(await readWallet(redis, prefix, customer.id)).toEqual({ creditedNano: 1_000n, spentNano: 300n, reservedNano: 0n });
  });
});

describe("a plan's rolling windows", () => {
  const HOUR = 3_600_000;
  const FIVE_HOURS = 5 * HOUR;

  it("a 5-hour window refuses once full, with the time until it frees, and admits again at its end", async () => {
    const subscription = id("sub");
    const customer: CustomerLimits = { id: id("cus"), budget: null, wallet: false, windows: [{ key: `plan:${subscription}:0`, lengthMs: FIVE_HOURS, requests: 2, usdNano: null }] };
    const keys = [id("key"), id("key")];
    const t0 = Date.now() + HOUR;
    expect((await spend(replicas[0]!, keys[0]!, customer, 0n, 0n, t0)).verdict).toBe("admitted");
    expect((await spend(replicas[1]!, keys[1]!, customer, 0n, 0n, t0 + HOUR)).verdict).toBe("admitted");
    const refused = await spend(replicas[2]!, keys[0]!, customer, 0n, 0n, t0 + 2 * HOUR);
    expect(refused.verdict).toBe("plan_limited");
    expect(refused.retryMs).toBe(3 * HOUR);
    expect((await spend(replicas[0]!, keys[1]!, customer, 0n, 0n, t0 + FIVE_HOURS - 1)).verdict).toBe("plan_limited");
    // The window started at its first request: it frees exactly 5 hours later, and the next request opens a new one.
    expect((await spend(replicas[1]!, keys[0]!, customer, 0n, 0n, t0 + FIVE_HOURS)).verdict).toBe("admitted");
    expect((await spend(replicas[2]!, keys[0]!, customer, 0n, 0n, t0 + FIVE_HOURS + HOUR)).verdict).toBe("admitted");
    const again = await spend(replicas[0]!, keys[1]!, customer, 0n, 0n, t0 + FIVE_HOURS + 2 * HOUR);
    expect(again.verdict).toBe("plan_limited");
    expect(again.retryMs).toBe(3 * HOUR);
  });

  it("a USD window reserves like a budget and settles the actual cost", async () => {
    const subscription = id("sub");
    const customer: CustomerLimits = { id: id("cus"), budget: null, wallet: false, windows: [{ key: `plan:${subscription}:0`, lengthMs: 86_400_000, requests: null, usdNano: 1_000n }] };
    const keyId = id("key");
    const now = Date.now();
    expect((await spend(replicas[0]!, keyId, customer, 600n, 100n, now)).verdict).toBe("admitted");
    // 100 spent: 600 more fits, and then 400 does not (100 + 600 + 400 > 1,000).
    expect((await spend(replicas[1]!, keyId, customer, 600n, 600n, now + 1)).verdict).toBe("admitted");
    expect((await spend(replicas[2]!, keyId, customer, 400n, 0n, now + 2)).verdict).toBe("plan_limited");
    expect((await spend(replicas[2]!, keyId, customer, 300n, 0n, now + 3)).verdict).toBe("admitted");
    const window = await redis.hgetall(`${prefix}:{${customer.id}}:plan:${subscription}:0`);
    expect(window).toMatchObject({ start: String(now), requests: "3", spent: "700", reserved: "0" });
  });

  it("window arithmetic: admissions at any times match a model of rolling windows", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.integer({ min: 0, max: 3 * FIVE_HOURS }), { minLength: 1, maxLength: 25 }),
        async (limit, offsets) => {
          const customer: CustomerLimits = { id: id("cus"), budget: null, wallet: false, windows: [{ key: `plan:${id("sub")}:0`, lengthMs: FIVE_HOURS, requests: limit, usdNano: null }] };
          const keyId = id("key");
          const base = Date.now();
          const times = [...offsets].sort((a, b) => a - b).map((offset) => base + offset);
          let start = -1;
          let used = 0;
          for (const [index, now] of times.entries()) {
            const result = await replicas[index % 3]!.admit(input(keyId, customer, 0n, now));
            if (start < 0 || now >= start + FIVE_HOURS) {
              start = now;
              used = 0;
            }
            if (used < limit) {
              used += 1;
              expect(result.verdict).toBe("admitted");
            } else {
              expect(result.verdict).toBe("plan_limited");
              expect(result.retryMs).toBe(start + FIVE_HOURS - now);
            }
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it("requests and USD windows, a budget and a wallet together: the first full one refuses", async () => {
    const customer: CustomerLimits = {
      id: id("cus"),
      budget: { limitNano: 10_000n, period: "day" },
      wallet: true,
      windows: [{ key: `plan:${id("sub")}:0`, lengthMs: FIVE_HOURS, requests: 100, usdNano: 5_000n }],
    };
    await addWalletCredit(redis, prefix, customer.id, 3_000n);
    const keyId = id("key");
    expect((await spend(replicas[0]!, keyId, customer, 2_000n, 2_000n)).verdict).toBe("admitted");
    expect((await spend(replicas[0]!, keyId, customer, 2_000n, 0n)).verdict).toBe("balance_exhausted");
    await addWalletCredit(redis, prefix, customer.id, 10_000n);
    expect((await spend(replicas[0]!, keyId, customer, 3_000n, 3_000n)).verdict).toBe("admitted");
    expect((await spend(replicas[0]!, keyId, customer, 1n, 0n)).verdict).toBe("plan_limited");
  });
});
