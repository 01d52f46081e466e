// Settlements off the response path: summed per key and counters, written with one script call per
// key when the batch closes, and exact whatever the interleaving.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Redis } from "ioredis";
import { resolveTestServices } from "@gateway/testing";
import { budgetCounter, LimitStore } from "./limit-store.ts";
import { SETTLE_SCRIPT } from "./limit-scripts.ts";
import { countScriptCalls } from "./script-calls.ts";

let redis: Redis;
const prefix = `test-${randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  redis = new Redis((await resolveTestServices()).redisUrl);
});
afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

describe("batched settlement", () => {
  it("sums 200 settlements of two keys into one script call per key, to the nano", async () => {
    const client = new Redis((await resolveTestServices()).redisUrl);
    const calls = countScriptCalls(client, SETTLE_SCRIPT);
    const limits = new LimitStore(client, prefix, { settleBatchMs: 20 });
    const [a, b] = [`key_${randomUUID()}`, `key_${randomUUID()}`];
    const now = Date.now();
    const budget = budgetCounter("day", now);
    for (let i = 0; i < 100; i += 1) {
      for (const keyId of [a, b]) {
        const admitted = await limits.admit({ keyId, rpm: 1000, tpm: 1_000_000, quotaNano: 10n ** 12n, budget: { limitNano: 10n ** 12n, period: "day" }, reservationNano: 1_000n, now });
        expect(admitted.verdict).toBe("admitted");
      }
    }
    const before = calls();
    const settled = [];
    for (let i = 0; i < 100; i += 1) {
      for (const keyId of [a, b]) settled.push(limits.settle({ keyId, tokens: 7, reservationNano: 1_000n, costNano: BigInt(300 + i), hasQuota: true, budget, now }));
    }
    // Nothing is written before the batch closes...
    expect(await limits.readQuota(a)).toEqual({ spent: 0n, reserved: 100_000n });
    await Promise.all(settled);
    // ...then once per key: the sums are exact.
    expect(calls() - before).toBe(2);
    const spent = BigInt(100 * 300 + (99 * 100) / 2);
    for (const keyId of [a, b]) {
      expect(await limits.readQuota(keyId)).toEqual({ spent, reserved: 0n });
      expect(await limits.readBudget(keyId, budget)).toEqual({ spent, reserved: 0n });
    }
    const window = Math.floor(now / 60_000);
    expect(await client.get(limits.keys.tokenWindow(a, window))).toBe("700");
    client.disconnect();
  });

  it("a key's pending settlement rides along with its next admission, booked before the check", async () => {
    const client = new Redis((await resolveTestServices()).redisUrl);
    const calls = countScriptCalls(client, SETTLE_SCRIPT);
    const limits = new LimitStore(client, prefix, { settleBatchMs: 60_000 });
    const [keyId, other] = [`key_${randomUUID()}`, `key_${randomUUID()}`];
    const admit = (id: string) => limits.admit({ keyId: id, rpm: null, tpm: 1_000_000, quotaNano: 1_000n, budget: null, reservationNano: 900n });
    expect((await admit(keyId)).verdict).toBe("admitted");
    expect((await admit(other)).verdict).toBe("admitted");
    // The first request cost 100 of its 900 reserved; the other key's request cost 50.
    const settled = limits.settle({ keyId, tokens: 9, reservationNano: 900n, costNano: 100n, hasQuota: true, budget: null });
    const otherSettled = limits.settle({ keyId: other, tokens: 1, reservationNano: 900n, costNano: 50n, hasQuota: true, budget: null });
    expect(await limits.readQuota(keyId)).toEqual({ spent: 0n, reserved: 900n });
    // 900 of the 1,000 are still reserved in Redis, and another 900 would not fit; yet the next
    // admission is let through (100 spent + 900 fits): its own call booked the settlement first.
    // No settle call was made.
    expect((await admit(keyId)).verdict).toBe("admitted");
    await settled;
    expect(calls()).toBe(0);
    expect(await limits.readQuota(keyId)).toEqual({ spent: 100n, reserved: 900n });
    expect(await client.get(limits.keys.tokenWindow(keyId, Math.floor(Date.now() / 60_000)))).toBe("9");
    // Another key's settlement does not ride along: it waits for its own admission or the batch.
    expect(await limits.readQuota(other)).toEqual({ spent: 0n, reserved: 900n });
    await limits.flush();
    await otherSettled;
    expect(calls()).toBe(1);
    expect(await limits.readQuota(other)).toEqual({ spent: 50n, reserved: 0n });
    client.disconnect();
  });

  it("flush() writes what is pending at once (shutdown), and a failed write rejects its callers", async () => {
    const client = new Redis((await resolveTestServices()).redisUrl);
    const limits = new LimitStore(client, prefix, { settleBatchMs: 60_000 });
    const keyId = `key_${randomUUID()}`;
    const pending = limits.settle({ keyId, tokens: 1, reservationNano: 0n, costNano: 5n, hasQuota: true, budget: null });
    await limits.flush();
    await pending;
    expect(await limits.readQuota(keyId)).toEqual({ spent: 5n, reserved: 0n });

    const failing = limits.settle({ keyId, tokens: 1, reservationNano: 0n, costNano: 5n, hasQuota: true, budget: null });
    client.disconnect();
    await limits.flush().catch(() => undefined);
    await expect(failing).rejects.toThrow();
  });
});
