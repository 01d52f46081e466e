// Periodic budgets in the limit script, with an injected clock: the period boundary, the quota
// beside it, and settlement into the period a request was admitted in.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Redis } from "ioredis";
import { resolveTestServices } from "@gateway/testing";
import { budgetCounter, LimitStore } from "./limit-store.ts";

let redis: Redis;
let limits: LimitStore;
const prefix = `test-${randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  redis = new Redis((await resolveTestServices()).redisUrl);
  limits = new LimitStore(redis, prefix);
});
afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

/**
 * A date of the test's calendar (late 2026) moved 28 years ahead: same weekdays and month lengths
 * (no century year in between), and still in the future for Redis, which expires a period's
 * counter at its real end (PEXPIREAT): a period already over on the machine's clock would read as
 * nothing spent.
 */
const CALENDAR_SHIFT_YEARS = 28;
const at = (iso: string) => {
  const date = new Date(iso);
  date.setUTCFullYear(date.getUTCFullYear() + CALENDAR_SHIFT_YEARS);
  return date.getTime();
};

/** Admits one request of `cost` nano-USD at `now` and settles it at its real cost. */
async function spend(keyId: string, budget: { limitNano: bigint; period: "day" | "week" | "month" }, cost: bigint, now: number, quotaNano: bigint | null = null) {
  const admitted = await limits.admit({ keyId, rpm: null, tpm: null, quotaNano, budget, reservationNano: cost, now });
  if (admitted.verdict === "admitted") {
    await limits.settle({ keyId, tokens: 10, reservationNano: cost, costNano: cost, hasQuota: quotaNano !== null, budget: admitted.budget, now });
  }
  return admitted.verdict;
}

describe("periodic budgets in the limit script", () => {
  it("a spent daily budget refuses until UTC midnight, then admits again from zero", async () => {
    const keyId = `key_${randomUUID().replaceAll("-", "")}`;
    const budget = { limitNano: 1_000n, period: "day" as const };
    expect(await spend(keyId, budget, 600n, at("2026-11-23T10:00:00Z"))).toBe("admitted");
    // 600 + 600 would pass the 1,000: refused (a refusal reserves nothing); 400 fits exactly.
    expect(await spend(keyId, budget, 600n, at("2026-11-23T12:00:00Z"))).toBe("budget_exhausted");
    expect(await spend(keyId, budget, 400n, at("2026-11-23T12:00:01Z"))).toBe("admitted");
    // Spent to the nano: even a request that reserves nothing is refused until midnight.
    expect(await spend(keyId, budget, 0n, at("2026-11-23T23:59:59.999Z"))).toBe("budget_exhausted");
    expect(await spend(keyId, budget, 600n, at("2026-11-24T00:00:00.000Z"))).toBe("admitted");
    expect(await limits.readBudget(keyId, budgetCounter("day", at("2026-11-24T01:00:00Z")))).toEqual({ spent: 600n, reserved: 0n });
    expect(await limits.readBudget(keyId, budgetCounter("day", at("2026-11-23T01:00:00Z")))).toEqual({ spent: 1_000n, reserved: 0n });
  });

  it("weekly budgets reset on Monday 00:00 UTC, monthly ones on the 1st", async () => {
    const weekly = `key_${randomUUID().replaceAll("-", "")}`;
    const week = { limitNano: 100n, period: "week" as const };
    expect(await spend(weekly, week, 100n, at("2026-11-23T00:00:00Z"))).toBe("admitted"); // Monday
    expect(await spend(weekly, week, 1n, at("2026-11-29T23:59:59Z"))).toBe("budget_exhausted"); // Sunday
    expect(await spend(weekly, week, 1n, at("2026-11-30T00:00:00Z"))).toBe("admitted"); // next Monday

    const monthly = `key_${randomUUID().replaceAll("-", "")}`;
    const month = { limitNano: 100n, period: "month" as const };
    expect(await spend(monthly, month, 100n, at("2026-12-01T00:00:00Z"))).toBe("admitted");
    expect(await spend(monthly, month, 1n, at("2026-12-31T23:59:59Z"))).toBe("budget_exhausted");
    expect(await spend(monthly, month, 1n, at("2027-01-01T00:00:00Z"))).toBe("admitted");
  });

  it("stands beside the lifetime quota: each refuses on its own, and a refusal reserves nothing", async () => {
    const keyId = `key_${randomUUID().replaceAll("-", "")}`;
    const budget = { limitNano: 500n, period: "day" as const };
    expect(await spend(keyId, budget, 500n, at("2026-11-23T10:00:00Z"), 800n)).toBe("admitted");
    expect(await spend(keyId, budget, 1n, at("2026-11-23T11:00:00Z"), 800n)).toBe("budget_exhausted");
    expect(await spend(keyId, budget, 300n, at("2026-11-24T10:00:00Z"), 800n)).toBe("admitted");
    // Quota: 800 spent of 800; the new day's budget has room, the quota has none.
    expect(await spend(keyId, budget, 1n, at("2026-11-24T11:00:00Z"), 800n)).toBe("quota_exhausted");
    expect(await limits.readQuota(keyId)).toEqual({ spent: 800n, reserved: 0n });
    expect(await limits.readBudget(keyId, budgetCounter("day", at("2026-11-24T00:00:00Z")))).toEqual({ spent: 300n, reserved: 0n });
  });

  it("a request admitted before midnight settles into the day it was admitted in", async () => {
    const keyId = `key_${randomUUID().replaceAll("-", "")}`;
    const budget = { limitNano: 1_000n, period: "day" as const };
    const admitted = await limits.admit({ keyId, rpm: null, tpm: null, quotaNano: null, budget, reservationNano: 400n, now: at("2026-11-23T23:59:59Z") });
    await limits.settle({ keyId, tokens: 1, reservationNano: 400n, costNano: 350n, hasQuota: false, budget: admitted.budget, now: at("2026-11-24T00:00:01Z") });
    expect(await limits.readBudget(keyId, budgetCounter("day", at("2026-11-23T12:00:00Z")))).toEqual({ spent: 350n, reserved: 0n });
    expect(await limits.readBudget(keyId, budgetCounter("day", at("2026-11-24T12:00:00Z")))).toEqual({ spent: 0n, reserved: 0n });
  });

  it("counters expire a day after their period, so old periods do not pile up", async () => {
    const keyId = `key_${randomUUID().replaceAll("-", "")}`;
    const now = Date.now();
    await spend(keyId, { limitNano: 1_000n, period: "day" }, 10n, now);
    const counter = budgetCounter("day", now);
    const expiresAt = await redis.pexpiretime(limits.keys.budget(keyId, "day", counter.periodStart));
    expect(expiresAt).toBe(counter.expiresAt);
  });
});

describe("amounts the script writes", () => {
  it("settles a request that reserved nothing, and amounts past 14 digits, exactly", async () => {
    const keyId = `key_${randomUUID().replaceAll("-", "")}`;
    const big = 123_456_789_012_345_678n;
    const admitted = await limits.admit({ keyId, rpm: null, tpm: null, quotaNano: big * 10n, budget: null, reservationNano: 0n });
    expect(admitted.verdict).toBe("admitted");
    await limits.settle({ keyId, tokens: 0, reservationNano: 0n, costNano: 0n, hasQuota: true, budget: null });
    await limits.admit({ keyId, rpm: null, tpm: null, quotaNano: big * 10n, budget: null, reservationNano: big });
    expect(await limits.readQuota(keyId)).toEqual({ spent: 0n, reserved: big });
    await limits.settle({ keyId, tokens: 5, reservationNano: big, costNano: big + 1n, hasQuota: true, budget: null });
    expect(await limits.readQuota(keyId)).toEqual({ spent: big + 1n, reserved: 0n });
  });
});
