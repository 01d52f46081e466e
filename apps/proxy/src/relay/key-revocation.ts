import { GatewayError } from "@gateway/contracts";
import type { Logger } from "@gateway/logger";
import type { KeyRecord, RecordStore } from "@gateway/redis-store";
import type { InFlightRegistry } from "./in-flight.ts";

/**
 * Why a key's secret, changed while requests of it were open, no longer holds them: revoked,
 * disabled (the key or its customer), or a secret rotated away without grace; null while it is still good.
 */
export function refusalOf(record: KeyRecord | null, now: number): GatewayError | null {
  // No record is not a refusal: the control plane writes a revoked key's record (it never deletes
  // one to refuse it), so a missing one means Redis lost its data (restarted empty, flushed) and
  // has not been rebuilt yet; a valid key's stream must ride that out (contract section 13).
  if (record === null) return null;
  if (record.status === "revoked") return new GatewayError("key_revoked", "This API key has been revoked.");
  if (record.status === "disabled") return new GatewayError("key_disabled", "This API key is disabled by its owner.");
  // A disabled customer pauses all its keys, open streams too (contract section 19).
  if (record.customer?.status === "disabled") return new GatewayError("key_disabled", "This API key's customer is disabled by its owner.");
  if (record.secretExpiresAt !== null && record.secretExpiresAt <= now) return new GatewayError("key_revoked", "This API key was rotated; use the new key.");
  return null;
}

/**
 * On a key's change event (every replica hears it within the pub/sub's delay): the requests still
 * open with that secret are ended when the key's record now refuses it, each with its shape's
 * final error event, its upstream call aborted, billed for what was relayed (contract section 14).
 * Redis is read only when a request of that secret is open.
 */
export async function endRefusedRequests(inFlight: InFlightRegistry, records: RecordStore, logger: Logger, hash: string): Promise<void> {
  if (inFlight.size === 0) return;
  let open = false;
  for (const entry of inFlight.entries()) if (entry.keyHash === hash) open = true;
  if (!open) return;
  let record: KeyRecord | null;
  try {
    record = await records.readKey(hash);
  } catch (error) {
    logger.warn({ err: (error as Error).message }, "a changed key was not re-read; its open requests run on");
    return;
  }
  const refusal = refusalOf(record, Date.now());
  if (refusal === null) return;
  // A copy first: a terminated request leaves the registry once billed.
  const ending = [...inFlight.entries()].filter((entry) => entry.keyHash === hash);
  for (const entry of ending) entry.terminate(refusal);
  logger.info({ requests: ending.length, code: refusal.code }, "ended the open requests of a refused key");
}

/**
 * After the change events were missed (the subscriber reconnected): every secret with requests
 * open is read again, so a key refused meanwhile still ends its streams.
 */
export async function recheckOpenRequests(inFlight: InFlightRegistry, records: RecordStore, logger: Logger): Promise<void> {
  const hashes = new Set<string>();
  for (const entry of inFlight.entries()) if (entry.keyHash) hashes.add(entry.keyHash);
  await Promise.all([...hashes].map((hash) => endRefusedRequests(inFlight, records, logger, hash)));
}
