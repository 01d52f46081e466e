import { GatewayError } from "@gateway/contracts";
import type { KeyRecord, RecordStore } from "@gateway/redis-store";

/**
 * Writes a key's Redis records and tells every proxy (each write publishes its eviction). Called
 * inside the transaction that changes the row: when Redis cannot take the change, this throws 503
 * and the transaction rolls back, so the API never reports a change the proxies cannot see.
 */
export async function publishKeyRecords(records: RecordStore, entries: readonly (readonly [hash: string, record: KeyRecord])[]): Promise<void> {
  try {
    for (const [hash, record] of entries) await records.writeKey(hash, record);
  } catch (error) {
    throw new GatewayError("dependency_unavailable", "The key store is unavailable; nothing was changed. Try again shortly.", { cause: error, retryAfter: 1 });
  }
}
