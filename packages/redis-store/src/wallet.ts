import type { RedisClient } from "./connect.ts";
import { redisKeys } from "./redis-keys.ts";

/**
 * A prepaid customer's wallet in Redis (contract section 19): `credited` (every WalletEntry's
 * amount), `spent` (settled cost of its keys' requests) and `reserved` (held by requests in
 * flight), nano-USD integer strings. Admission reserves against credited - spent - reserved like a
 * quota (limit-scripts.ts); Postgres stays the truth and `rebuildWalletCounters` restores it.
 */

/**
 * Adds `amountNano` to the customer's credited total, atomically (one HINCRBY, so concurrent
 * credits and admissions on every replica see it at once). Called once per WalletEntry, after the
 * row is inserted (a grant, a redemption, a payment); a negative amount debits. Resolves to the
 * new credited total.
 */
export async function addWalletCredit(redis: RedisClient, prefix: string, customerId: string, amountNano: bigint): Promise<bigint> {
  const credited = await redis.hincrby(redisKeys(prefix).wallet(customerId), "credited", amountNano.toString());
  return BigInt(credited);
}

export interface WalletCounters {
  creditedNano: bigint;
  spentNano: bigint;
  reservedNano: bigint;
}

/** The wallet's counters as admissions see them. */
export async function readWallet(redis: RedisClient, prefix: string, customerId: string): Promise<WalletCounters> {
  const [credited, spent, reserved] = await redis.hmget(redisKeys(prefix).wallet(customerId), "credited", "spent", "reserved");
  return { creditedNano: BigInt(credited ?? "0"), spentNano: BigInt(spent ?? "0"), reservedNano: BigInt(reserved ?? "0") };
}

/**
 * Postgres's figures replace the wallet's counters (credits: the sum of wallet_entries; spent: the
 * ledger's cost of the customer's keys); reservations in flight are forgotten, as a key's rebuild
 * does (a release after it never takes `reserved` below zero).
 */
export async function rebuildWalletCounters(redis: RedisClient, prefix: string, customerId: string, creditedNano: bigint, spentNano: bigint): Promise<void> {
  await redis.hset(redisKeys(prefix).wallet(customerId), { credited: creditedNano.toString(), spent: spentNano.toString(), reserved: "0" });
}
