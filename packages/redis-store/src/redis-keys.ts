/**
 * Every Redis key name in one place. The `{prefix}` hash tag keeps all of one deployment's
 * records in one cluster slot where a script needs them together.
 */
export interface RedisKeys {
  apiKey(hash: string): string;
  snapshot: string;
  events: string;
  /** BullMQ's own prefix for queues. */
  queuePrefix: string;
  /**
   * Per-key limit counters. The `{keyId}` hash tag puts all of one key's counters in one cluster
   * slot, so one script can read and write them together.
   */
  requestWindow(keyId: string, window: number): string;
  tokenWindow(keyId: string, window: number): string;
  quota(keyId: string): string;
}

export function redisKeys(prefix: string): RedisKeys {
  const base = prefix ? `${prefix}:` : "";
  return {
    apiKey: (hash) => `${base}key:${hash}`,
    snapshot: `${base}routing-snapshot`,
    events: `${base}events`,
    queuePrefix: `${base}bull`,
    requestWindow: (keyId, window) => `${base}{${keyId}}:rpm:${window}`,
    tokenWindow: (keyId, window) => `${base}{${keyId}}:tpm:${window}`,
    quota: (keyId) => `${base}{${keyId}}:quota`,
  };
}
