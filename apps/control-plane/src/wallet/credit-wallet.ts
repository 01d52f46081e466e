import { GatewayError, newId } from "@gateway/contracts";
import type { Prisma } from "@gateway/db";
import { addWalletCredit, readWallet, type RedisClient } from "@gateway/redis-store";


export type WalletEntryKind = "grant" | "payment" | "code" | "auto_top_up";

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
  const rows = await tx.$queryRaw<WalletEntryRow[]>`
    INSERT INTO wallet_entries (id, customer_id, amount_nano, kind, reason, source_id, token_id)
    VALUES (${credit.entryId ?? newId("we")}, ${credit.customerId}, ${credit.amountNano}, ${credit.kind}, ${credit.reason ?? ""}, ${credit.sourceId}, ${credit.tokenId ?? null})
    ON CONFLICT (kind, source_id) DO NOTHING
    RETURNING id, customer_id, amount_nano, kind, reason, source_id, created_at`;
  const entry = rows[0];
  if (!entry) return null;
  try {
    await addWalletCredit(target.redis, target.prefix, credit.customerId, credit.amountNano);
  } catch (error) {
    throw new GatewayError("dependency_unavailable", "The wallet store is unavailable; nothing was credited. Try again shortly.", { cause: error, retryAfter: 1 });
  }
  return entry;
}

/** The balance admissions see: credited minus spent (reservations in flight not taken off). */
export async function walletBalanceNano(target: WalletTarget, customerId: string): Promise<bigint> {
  const wallet = await readWallet(target.redis, target.prefix, customerId);
  return wallet.creditedNano - wallet.spentNano;
}
