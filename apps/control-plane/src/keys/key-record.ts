import type { ApiKey } from "@gateway/db";
import type { KeyRecord } from "@gateway/redis-store";

/** The Postgres row -> the Redis record proxies read. */
export function toKeyRecord(row: ApiKey, serverOptionName: string): KeyRecord {
  return {
    id: row.id,
    vendorId: row.vendorId,
    name: row.name,
    prefix: row.prefix,
    serverOption: serverOptionName,
    status: row.status === "revoked" ? "revoked" : "active",
    expiresAt: row.expiresAt ? row.expiresAt.getTime() : null,
    quotaNano: row.quotaNano === null ? null : row.quotaNano.toString(),
    rpm: row.rpm,
    tpm: row.tpm,
  };
}
