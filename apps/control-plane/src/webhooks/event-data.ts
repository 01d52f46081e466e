import type { ApiKey } from "@gateway/db";

/** `data` of `key.revoked`: which key, whose, when. */
export function keyRevokedData(row: Pick<ApiKey, "id" | "name" | "prefix" | "customerId" | "revokedAt">): Record<string, unknown> {
  return {
    key_id: row.id,
    name: row.name,
    prefix: row.prefix,
    customer_id: row.customerId,
    revoked_at: (row.revokedAt ?? new Date()).toISOString(),
  };
}
