import { isBudgetPeriod } from "@gateway/contracts";
import type { ApiKey } from "@gateway/db";
import type { CustomerRecord, KeyRecord } from "@gateway/redis-store";

/** The Postgres row -> the Redis record proxies read for the key's current secret. */
export function toKeyRecord(row: ApiKey, serverOptionName: string, customer: CustomerRecord | null = null): KeyRecord {
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
    customer,
  };
}

/**
 * Every Redis record a row needs, by secret hash: its current secret and, during a rotation's
 * grace period, the replaced secret (the same key, refused from `previousKeyExpiresAt` on).
 * `customer`: the key's customer's record (customers/customer-record.ts), which every key of a
 * customer carries; a key without one passes null.
 */
export function keyRecordsOf(row: ApiKey, serverOptionName: string, customer: CustomerRecord | null = null): [hash: string, record: KeyRecord][] {
  const current = toKeyRecord(row, serverOptionName, customer);
  const entries: [string, KeyRecord][] = [[row.keyHash, current]];
  if (row.previousKeyHash !== null && row.previousKeyExpiresAt !== null) {
    entries.push([row.previousKeyHash, { ...current, secretExpiresAt: row.previousKeyExpiresAt.getTime() }]);
  }
  return entries;
}
