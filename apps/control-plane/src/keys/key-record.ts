import { isBudgetPeriod } from "@gateway/contracts";
import type { ApiKey } from "@gateway/db";
import type { KeyRecord } from "@gateway/redis-store";

/** The Postgres row -> the Redis record proxies read for the key's current secret. */
export function toKeyRecord(row: ApiKey, serverOptionName: string): KeyRecord {
  return {
    id: row.id,
    vendorId: row.vendorId,
    name: row.name,
    prefix: row.prefix,
    serverOption: serverOptionName,
    status: row.status === "revoked" || row.status === "disabled" ? row.status : "active",
    expiresAt: row.expiresAt ? row.expiresAt.getTime() : null,
    quotaNano: row.quotaNano === null ? null : row.quotaNano.toString(),
    rpm: row.rpm,
    tpm: row.tpm,
    budget: row.budgetNano !== null && isBudgetPeriod(row.budgetPeriod) ? { limitNano: row.budgetNano.toString(), period: row.budgetPeriod } : null,
    secretExpiresAt: null,
    revision: row.revision,
  };
}

/**
 * Every Redis record a row needs, by secret hash: its current secret and, during a rotation's
 * grace period, the replaced secret (the same key, refused from `previousKeyExpiresAt` on).
 */
export function keyRecordsOf(row: ApiKey, serverOptionName: string): [hash: string, record: KeyRecord][] {
  const current = toKeyRecord(row, serverOptionName);
  const entries: [string, KeyRecord][] = [[row.keyHash, current]];
  if (row.previousKeyHash !== null && row.previousKeyExpiresAt !== null) {
    entries.push([row.previousKeyHash, { ...current, secretExpiresAt: row.previousKeyExpiresAt.getTime() }]);
  }
  return entries;
}
