import { GatewayError, hashSecret } from "@gateway/contracts";
import type { KeyRecord } from "@gateway/redis-store";
import type { KeyCache } from "./key-cache.ts";

/** `Authorization: Bearer sk-...` or `x-api-key: sk-...`, on any endpoint (contract section 1). */
export function presentedKey(headers: Record<string, string | string[] | undefined>): string | null {
  const apiKey = headers["x-api-key"];
  if (typeof apiKey === "string" && apiKey.length > 0) return apiKey.trim();
  const authorization = headers.authorization;
  if (typeof authorization === "string" && authorization.length > 7 && authorization.slice(0, 7).toLowerCase() === "bearer ") {
    return authorization.slice(7).trim();
  }
  return null;
}

const INVALID = "Invalid API key. Send `Authorization: Bearer sk-...` or `x-api-key: sk-...`.";

/**
 * The key's record, or the error to answer with (thrown). At once (no promise) when the key is in
 * this process's cache, which is every request of a key in use; else once Redis has answered.
 */
export function authenticate(headers: Record<string, string | string[] | undefined>, cache: KeyCache): KeyRecord | Promise<KeyRecord> {
  const key = presentedKey(headers);
  if (!key) throw new GatewayError("invalid_api_key", "Missing API key. Send `Authorization: Bearer sk-...` or `x-api-key: sk-...`.");
  if (!key.startsWith("sk-") || key.length > 200) throw new GatewayError("invalid_api_key", INVALID);
  const found = cache.get(hashSecret(key));
  return found instanceof Promise ? found.then(usableKey) : usableKey(found);
}

function usableKey(record: KeyRecord | null): KeyRecord {
  if (!record) throw new GatewayError("invalid_api_key", INVALID);
  if (record.status === "revoked") throw new GatewayError("invalid_api_key", "This API key has been revoked.");
  if (record.status === "disabled") throw new GatewayError("key_disabled", "This API key is disabled by its owner.");
  // A disabled customer's keys are paused with it (contract section 19); its record carries the status.
  if (record.customer?.status === "disabled") throw new GatewayError("key_disabled", "This API key's customer is disabled by its owner.");
  const now = Date.now();
  if (record.secretExpiresAt !== null && record.secretExpiresAt <= now) {
    throw new GatewayError("invalid_api_key", "This API key was rotated; use the new key.");
  }
  if (record.expiresAt !== null && record.expiresAt <= now) throw new GatewayError("invalid_api_key", "This API key has expired.");
  return record;
}
