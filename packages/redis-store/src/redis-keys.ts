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
}

export function redisKeys(prefix: string): RedisKeys {
  const base = prefix ? `${prefix}:` : "";
  return {
    apiKey: (hash) => `${base}key:${hash}`,
    snapshot: `${base}routing-snapshot`,
    events: `${base}events`,
    queuePrefix: `${base}bull`,
  };
}
