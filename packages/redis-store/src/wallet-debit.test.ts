// A prepaid wallet pays a plan's price only from what admissions could still use (contract
// section 19, issue 38): exact past 2^53 nano-USD, and concurrent debits never overdraw it.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Redis } from "ioredis";
import { resolveTestServices } from "@gateway/testing";
import { redisKeys } from "./redis-keys.ts";
import { addWalletCredit, debitWalletIfAvailable, readWallet, rebuildWalletCounters } from "./wallet.ts";

let redis: Redis;
const prefix = `test-${randomUUID().slice(0, 8)}`;
const customer = () => `cus_${randomUUID().replaceAll("-", "")}`;

beforeAll(async () => {
  redis = new Redis((await resolveTestServices()).redisUrl);
});
afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

describe("debitWalletIfAvailable", () => {
  it("debits when credited - spent - reserved covers the amount, to the nano-dollar; refuses one nano more", async () => {
    const id = customer();
    await rebuildWalletCounters(redis, prefix, id, 10_000_000_000n, 3_000_000_000n);
    await redis.hset(redisKeys(prefix).wallet(id), "reserved", "2000000000");
    expect(await debitWalletIfAvailable(redis, prefix, id, 5_000_000_001n)).toBe(false);
    expect((await readWallet(redis, prefix, id)).creditedNano).toBe(10_000_000_000n);
    expect(await debitWalletIfAvailable(redis, prefix, id, 5_000_000_000n)).toBe(true);
    expect(await readWallet(redis, prefix, id)).toEqual({ creditedNano: 5_000_000_000n, spentNano: 3_000_000_000n, reservedNano: 2_000_000_000n });
    expect(await debitWalletIfAvailable(redis, prefix, id, 1n)).toBe(false);
  });

  it("is exact past 2^53 nano-USD (a Lua number is not)", async () => {
    const id = customer();
    const big = 2n ** 60n + 7n;
    await addWalletCredit(redis, prefix, id, big);
    expect(await debitWalletIfAvailable(redis, prefix, id, big + 1n)).toBe(false);
    expect(await debitWalletIfAvailable(redis, prefix, id, big - 3n)).toBe(true);
    expect((await readWallet(redis, prefix, id)).creditedNano).toBe(3n);
  });

  it("an empty wallet pays nothing; 50 concurrent debits of 1 on a wallet of 20 take exactly 20", async () => {
    expect(await debitWalletIfAvailable(redis, prefix, customer(), 1n)).toBe(false);
    const id = customer();
    await addWalletCredit(redis, prefix, id, 20n);
    const results = await Promise.all(Array.from({ length: 50 }, () => debitWalletIfAvailable(redis, prefix, id, 1n)));
    expect(results.filter(Boolean)).toHaveLength(20);
    expect((await readWallet(redis, prefix, id)).creditedNano).toBe(0n);
  });
});
