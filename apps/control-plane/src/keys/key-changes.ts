import { displayPrefix, formatUsd, GatewayError, hashSecret, MAX_MONEY_NANO, newApiKey, type BudgetPeriod } from "@gateway/contracts";
import type { ApiKey, Prisma, PrismaClient } from "@gateway/db";
import { budgetCounter, type LimitStore, type RecordStore } from "@gateway/redis-store";
import { loadKeyActivity } from "../vendors/key-object.ts";
import { recordAudit, type Actor } from "./audit.ts";
import { loadCustomerRecord } from "../customers/customer-record.ts";
import { keyRecordsOf } from "./key-record.ts";
import { publishKeyRecords } from "./publish-key.ts";

type Tx = Parameters<Parameters<PrismaClient["$transaction"]>[0]>[0];
type KeyWithOption = ApiKey & { serverOption: { name: string; rpm: number | null; tpm: number | null } };

/** PATCH /api/keys/{id} after validation: only the fields the vendor sent. */
export interface KeyPatch {
  name?: string;
  /** New limit; null = unlimited. */
  quotaNano?: bigint | null;
  /** Added to the current limit (a top-up). */
  quotaAddNano?: bigint;
  rpm?: number | null;
  tpm?: number | null;
  expiresAt?: Date | null;
  metadata?: Record<string, unknown>;
  budget?: { limitNano: bigint; period: BudgetPeriod } | null;
  status?: "active" | "disabled";
}

const OPTION = { serverOption: { select: { name: true, rpm: true, tpm: true } } } as const;

/**
 * Locks the vendor's key row for the rest of the transaction. Concurrent changes of one key
 * (top-ups from several control planes) take turns here, so each reads what the last committed.
 * Another vendor's key is reported exactly like a missing one.
 */
async function lockVendorKey(tx: Tx, vendorId: string, id: string): Promise<KeyWithOption> {
  const locked = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM api_keys WHERE id = ${id} AND vendor_id = ${vendorId} FOR UPDATE`;
  if (locked.length === 0) throw new GatewayError("not_found", `No key with id '${id}'.`, { param: "id" });
  return tx.apiKey.findUniqueOrThrow({ where: { id }, include: OPTION });
}

/**
 * Applies a patch in one transaction: lock the row, check the patch against it, write the row with
 * a new revision, append the audit entry, then rewrite the Redis records (which tells every proxy).
 * If Redis cannot take it the transaction rolls back and the caller gets 503: nothing changed.
 */
export async function updateKey(tx: Tx, stores: { records: RecordStore; limits: LimitStore }, actor: Actor, id: string, patch: KeyPatch): Promise<KeyWithOption> {
  const before = await lockVendorKey(tx, actor.vendorId, id);
  if (before.status === "revoked" && patch.status !== undefined) {
    throw new GatewayError("invalid_body", "status: a revoked key stays revoked; mint a new key instead", { param: "status" });
  }
  const data: Prisma.ApiKeyUncheckedUpdateInput = {};
  const changes: Record<string, unknown> = {};
  if (patch.name !== undefined) data.name = changes.name = patch.name;
  if (patch.quotaNano !== undefined) {
    data.quotaNano = patch.quotaNano;
    changes.quota = patch.quotaNano === null ? null : formatUsd(patch.quotaNano);
  }
  if (patch.quotaAddNano !== undefined) {
    if (before.quotaNano === null) throw new GatewayError("invalid_body", "quota_add: the key has no quota (unlimited); set `quota` instead", { param: "quota_add" });
    const quota = before.quotaNano + patch.quotaAddNano;
    // The top-up is in bounds; the limit it makes must be too (repeated top-ups would reach BIGINT's range).
    if (quota > MAX_MONEY_NANO) throw new GatewayError("invalid_body", `quota_add: the quota would be ${formatUsd(quota)} USD, above the most a key may hold (1000000000 USD)`, { param: "quota_add" });
    data.quotaNano = quota;
    changes.quota_add = formatUsd(patch.quotaAddNano);
    changes.quota = formatUsd(quota);
  }
  if (patch.rpm !== undefined) data.rpm = patch.rpm;
  if (patch.tpm !== undefined) data.tpm = patch.tpm;
  if (patch.rpm !== undefined || patch.tpm !== undefined) changes.rate_limits = { ...(patch.rpm !== undefined ? { rpm: patch.rpm } : {}), ...(patch.tpm !== undefined ? { tpm: patch.tpm } : {}) };
  if (patch.expiresAt !== undefined) {
    data.expiresAt = patch.expiresAt;
    changes.expires_at = patch.expiresAt?.toISOString() ?? null;
  }
  if (patch.metadata !== undefined) data.metadata = changes.metadata = patch.metadata as Prisma.InputJsonValue;
  if (patch.budget !== undefined) {
    data.budgetNano = patch.budget?.limitNano ?? null;
    data.budgetPeriod = patch.budget?.period ?? null;
    changes.budget = patch.budget === null ? null : { limit: formatUsd(patch.budget.limitNano), period: patch.budget.period };
  }
  if (patch.status !== undefined && patch.status !== before.status) data.status = changes.status = patch.status;
  if (Object.keys(changes).length === 0) return before;
  const row = await tx.apiKey.update({ where: { id }, data: { ...data, revision: { increment: 1 } }, include: OPTION });
  await recordAudit(tx, actor, "key.updated", id, changes);
  if (patch.budget && patch.budget.period !== before.budgetPeriod) await startBudgetCounter(tx, stores.limits, row, patch.budget.period);
  await publishKeyRecords(stores.records, keyRecordsOf(row, row.serverOption.name, await loadCustomerRecord(tx, row.customerId)));
  return row;
}

/**
 * A key that gains a budget (or changes its period) starts its period's counter from the ledger's
 * spend so far, before any proxy sees the budget: requests admitted without it never settle there.
 * Spend the worker has not written yet (the last moment's requests) is not counted.
 */
async function startBudgetCounter(tx: Tx, limits: LimitStore, row: ApiKey, period: BudgetPeriod): Promise<void> {
  const now = Date.now();
  const activity = await loadKeyActivity(tx as unknown as PrismaClient, [row], now);
  try {
    await limits.setBudgetSpent(row.id, budgetCounter(period, now), activity.get(row.id)!.budgetUsedNano, row.customerId);
  } catch (error) {
    throw new GatewayError("dependency_unavailable", "The key store is unavailable; nothing was changed. Try again shortly.", { cause: error, retryAfter: 1 });
  }
}

/** Longest grace a rotated-out secret may keep working (contract section 9). */
export const MAX_GRACE_SECONDS = 86_400;

/**
 * A new secret for the same key (same id, settings and usage). The replaced secret is refused at
 * once, or from the end of `graceSeconds`; a secret still in grace from an earlier rotation is
 * refused at once. Runs in the caller's transaction (the idempotent runner's, when the request
 * carries an Idempotency-Key), publishing every affected record before it commits.
 */
export async function rotateKey(tx: Tx, records: RecordStore, actor: Actor, id: string, graceSeconds: number, now = Date.now()): Promise<{ row: KeyWithOption; plaintext: string }> {
  const before = await lockVendorKey(tx, actor.vendorId, id);
  if (before.status === "revoked") throw new GatewayError("invalid_body", "id: a revoked key cannot be rotated", { param: "id" });
  const plaintext = newApiKey();
  const graceEnd = graceSeconds > 0 ? new Date(now + graceSeconds * 1000) : null;
  const row = await tx.apiKey.update({
    where: { id },
    data: {
      keyHash: hashSecret(plaintext),
      prefix: displayPrefix(plaintext),
      previousKeyHash: graceEnd ? before.keyHash : null,
      previousKeyExpiresAt: graceEnd,
      revision: { increment: 1 },
    },
    include: OPTION,
  });
  await recordAudit(tx, actor, "key.rotated", id, { prefix: row.prefix, grace_seconds: graceSeconds });
  const entries = keyRecordsOf(row, row.serverOption.name, await loadCustomerRecord(tx, row.customerId));
  const [[, current]] = entries as [[string, ReturnType<typeof keyRecordsOf>[number][1]]];
  // Secrets that stop now: the replaced one without grace, and one still in an earlier grace.
  const refusedNow = [graceEnd ? null : before.keyHash, before.previousKeyHash].filter((hash): hash is string => hash !== null);
  for (const hash of refusedNow) entries.push([hash, { ...current, secretExpiresAt: now }]);
  await publishKeyRecords(records, entries);
  return { row, plaintext };
}
