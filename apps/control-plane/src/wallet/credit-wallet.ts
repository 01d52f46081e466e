import { formatUsd, GatewayError, newId } from "@gateway/contracts";
import type { Prisma } from "@gateway/db";
import { addWalletCredit, debitWalletIfAvailable, readWallet, type RedisClient } from "@gateway/redis-store";


/** Credits (positive amounts) and `plan`, a plan's price for one period (a negative amount: a debit). */
export type WalletEntryKind = "grant" | "payment" | "code" | "auto_top_up" | "plan";

export interface WalletCredit {
  customerId: string;
  kind: WalletEntryKind;
  /** What the credit comes from (the Stripe event, the code, the PaymentIntent); credited once per kind and source. Null: always a new entry (grants). */
  sourceId: string | null;
  amountNano: bigint;
  reason?: string;
  /** The entry's id when the caller must name it first (an audit entry written before it); else a new one. */
  entryId?: string;
  /** The vendor token that granted it (grants). */
  tokenId?: string | null;
}

export interface WalletEntryRow {
  id: string;
  customer_id: string;
  amount_nano: bigint;
  kind: string;
  reason: string;
  source_id: string | null;
  created_at: Date;
}

export interface WalletTarget {
  redis: RedisClient;
  prefix: string;
}

/**
 * Appends one credit to a customer's wallet inside the caller's transaction, at most once per
 * (kind, source): the INSERT ... ON CONFLICT DO NOTHING waits for a concurrent insert of the same
 * source to commit or roll back, then inserts nothing. The credit reaches the Redis counters the
 * proxies admit from (`addWalletCredit`) before the transaction commits; when Redis cannot take
 * it, this throws (503) and the transaction rolls back, so a retry (Stripe's, the client's) credits
 * it then. Returns null when that source was already credited.
 */
export async function creditWallet(tx: Prisma.TransactionClient, target: WalletTarget, credit: WalletCredit): Promise<WalletEntryRow | null> {
  const entry = await insertEntry(tx, credit);
  if (!entry) return null;
  try {
    await addWalletCredit(target.redis, target.prefix, credit.customerId, credit.amountNano);
  } catch (error) {
    throw storeUnavailable(error);
  }
  return entry;
}

export interface WalletDebit {
  customerId: string;
  kind: "plan";
  /** Charged once per source: `sub:<subscription id>:<period start>` for a plan's period. */
  sourceId: string;
  /** What is taken, positive; the entry stores it negative. */
  amountNano: bigint;
  reason: string;
  /** Prepaid: taken only if the balance admissions see covers it (else 402 insufficient_balance). Postpaid: always (the balance goes below zero: what the customer owes). */
  prepaid: boolean;
}

/**
 * Takes an amount from a customer's wallet inside the caller's transaction, at most once per
 * (kind, source), as creditWallet credits: the entry (negative) first, then the Redis counter. A
 * prepaid wallet pays only what is left after spend and requests in flight (one Redis script, so
 * admissions on every replica see it before or after, never half); when it cannot, the entry is
 * removed again and this throws 402 `insufficient_balance`. Returns null when that source was
 * already charged. The caller undoes the Redis part with `undoWalletDebit` if its transaction
 * then fails.
 */
export async function debitWallet(tx: Prisma.TransactionClient, target: WalletTarget, debit: WalletDebit): Promise<WalletEntryRow | null> {
  const entry = await insertEntry(tx, { customerId: debit.customerId, kind: debit.kind, sourceId: debit.sourceId, amountNano: -debit.amountNano, reason: debit.reason });
  if (!entry) return null;
  let paid: boolean;
  try {
    paid = debit.prepaid
      ? await debitWalletIfAvailable(target.redis, target.prefix, debit.customerId, debit.amountNano)
      : (await addWalletCredit(target.redis, target.prefix, debit.customerId, -debit.amountNano), true);
  } catch (error) {
    throw storeUnavailable(error);
  }
  if (!paid) {
    await tx.$executeRaw`DELETE FROM wallet_entries WHERE id = ${entry.id}`;
    const balance = await walletBalanceNano(target, debit.customerId).catch(() => null);
    throw new GatewayError(
      "insufficient_balance",
      `The customer's prepaid balance${balance === null ? "" : ` (${formatUsd(balance)} USD, less requests in flight)`} does not cover ${formatUsd(debit.amountNano)} USD; credit its wallet first.`,
    );
  }
  return entry;
}

/** Gives back a debit's Redis part when the transaction that wrote its entry did not commit. */
export async function undoWalletDebit(target: WalletTarget, customerId: string, amountNano: bigint): Promise<void> {
  await addWalletCredit(target.redis, target.prefix, customerId, amountNano);
}

async function insertEntry(tx: Prisma.TransactionClient, entry: WalletCredit): Promise<WalletEntryRow | null> {
  const rows = await tx.$queryRaw<WalletEntryRow[]>`
    INSERT INTO wallet_entries (id, customer_id, amount_nano, kind, reason, source_id, token_id)
    VALUES (${entry.entryId ?? newId("we")}, ${entry.customerId}, ${entry.amountNano}, ${entry.kind}, ${entry.reason ?? ""}, ${entry.sourceId}, ${entry.tokenId ?? null})
    ON CONFLICT (kind, source_id) DO NOTHING
    RETURNING id, customer_id, amount_nano, kind, reason, source_id, created_at`;
  return rows[0] ?? null;
}

function storeUnavailable(error: unknown): GatewayError {
  return new GatewayError("dependency_unavailable", "The wallet store is unavailable; nothing was credited or charged. Try again shortly.", { cause: error, retryAfter: 1 });
}

/** The balance admissions see: credited minus spent (reservations in flight not taken off). */
export async function walletBalanceNano(target: WalletTarget, customerId: string): Promise<bigint> {
  const wallet = await readWallet(target.redis, target.prefix, customerId);
  return wallet.creditedNano - wallet.spentNano;
}
