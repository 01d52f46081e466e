import type { RedisClient } from "./connect.ts";
import { redisKeys } from "./redis-keys.ts";
import type { BudgetCounter } from "./limit-types.ts";
import { MONEY_LUA } from "./limit-scripts.ts";

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

/**
 * Takes `amountNano` off the wallet's credited total only if it fits in what admissions could
 * still use (credited - spent - reserved, compared exactly as admission does), in one script, so a
 * concurrent admission on any replica sees the wallet either before or after it, never half.
 * KEYS the wallet; ARGV the amount (a positive integer string). 1 debited, 0 it did not fit.
 */
const DEBIT_IF_AVAILABLE_SCRIPT = `${MONEY_LUA}
local state = redis.call('HMGET', KEYS[1], 'credited', 'spent', 'reserved')
local left = minus(limbs(state[1] or '0'), plus(limbs(state[2] or '0'), limbs(state[3] or '0')))
if sign_of(minus(left, limbs(ARGV[1]))) < 0 then return 0 end
redis.call('HINCRBY', KEYS[1], 'credited', '-' .. ARGV[1])
return 1
`;

type WalletCommands = { gatewayWalletDebit(key: string, amount: string): Promise<number> };

/**
 * A prepaid customer pays `amountNano` (> 0) from its wallet when what is left covers it (a plan's
 * price): resolves true when debited, false (nothing changed) when the balance is short.
 */
export async function debitWalletIfAvailable(redis: RedisClient, prefix: string, customerId: string, amountNano: bigint): Promise<boolean> {
  if (amountNano <= 0n) throw new RangeError("a debit is a positive amount");
  if (!("gatewayWalletDebit" in redis)) redis.defineCommand("gatewayWalletDebit", { numberOfKeys: 1, lua: DEBIT_IF_AVAILABLE_SCRIPT });
  return (await (redis as RedisClient & WalletCommands).gatewayWalletDebit(redisKeys(prefix).wallet(customerId), amountNano.toString())) === 1;
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

/** A customer's budget counter for one period (its keys' spend together), as admissions see it. */
export async function readCustomerBudget(redis: RedisClient, prefix: string, customerId: string, counter: BudgetCounter): Promise<{ spent: bigint; reserved: bigint }> {
  const [spent, reserved] = await redis.hmget(`${redisKeys(prefix).customer(customerId)}:budget:${counter.period}:${counter.periodStart}`, "spent", "reserved");
  return { spent: BigInt(spent ?? "0"), reserved: BigInt(reserved ?? "0") };
}

/**
 * The ledger's spend of the customer's keys in the budget's current period replaces its counter:
 * after a rebuild, or when the customer gains a budget (before proxies see it).
 */
export async function setCustomerBudgetSpent(redis: RedisClient, prefix: string, customerId: string, counter: BudgetCounter, spentNano: bigint): Promise<void> {
  const key = `${redisKeys(prefix).customer(customerId)}:budget:${counter.period}:${counter.periodStart}`;
  await redis.hset(key, { spent: spentNano.toString(), reserved: "0" });
  await redis.pexpireat(key, counter.expiresAt);
}
