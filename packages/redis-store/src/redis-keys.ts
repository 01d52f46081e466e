/**
 * Every Redis key name in one place, all under `${prefix}:`. On a Redis Cluster a script may only
 * touch keys of one slot: a `{...}` hash tag marks the keys used together (one API key's limit
 * counters, one BullMQ queue); every other key is read or written alone and may live anywhere.
 */
export interface RedisKeys {
  apiKey(hash: string): string;
  snapshot: string;
  events: string;
  /**
   * BullMQ's own prefix for queues. Its Lua scripts touch many keys of one queue at once, so on a
   * Redis Cluster they must share a slot: the `{bull}` hash tag puts them all in one
   * (https://docs.bullmq.io/patterns/redis-cluster). Producer and worker both take it from here.
   */
  queuePrefix: string;
  /**
   * Per-key limit counters. The `{keyId}` hash tag puts all of one key's counters in one cluster
   * slot, so one script can read and write them together.
   *
   * The common start of one key's counters (`…{keyId}`): the limit scripts take only this and
   * name the counters below from it (same hash tag, so the same cluster slot), which keeps their
   * arguments small. The suffixes are spelled in limit-scripts.ts too, and must stay the same.
   */
  limits(keyId: string, customerId?: string | null): string;
  /**
   * One customer's counters (contract section 19): its wallet, its budget, its plan's windows,
   * under the customer's `{customerId}` hash tag. The counters of a key that belongs to a customer
   * live in the same slot (`limits(keyId, customerId)`), so one script checks both.
   */
  customer(customerId: string): string;
  /** The customer's wallet: a hash of `credited`, `spent` and `reserved` (nano-USD integer strings). */
  wallet(customerId: string): string;
  requestWindow(keyId: string, window: number): string;
  tokenWindow(keyId: string, window: number): string;
  quota(keyId: string): string;
  /** The key's budget counter for the `period` ("day", "week", "month") starting at `periodStart` (epoch ms). */
  budget(keyId: string, period: string, periodStart: number): string;
  /** The key's admission leases: nano-USD held per lease id (a hash), and when each is dropped (a sorted set). */
  leases(keyId: string): string;
  leaseEnds(keyId: string): string;
  /** The key's in-flight tokens per holder (a process tag, a lease id; a hash), and when each is dropped (a sorted set). */
  tokensHeld(keyId: string): string;
  tokensHeldEnds(keyId: string): string;
}

export function redisKeys(prefix: string): RedisKeys {
  const base = prefix ? `${prefix}:` : "";
  return {
    apiKey: (hash) => `${base}key:${hash}`,
    snapshot: `${base}routing-snapshot`,
    events: `${base}events`,
    queuePrefix: `${base}{bull}`,
    limits: (keyId, customerId) => (customerId ? `${base}{${customerId}}:key:${keyId}` : `${base}{${keyId}}`),
    customer: (customerId) => `${base}{${customerId}}`,
    wallet: (customerId) => `${base}{${customerId}}:wallet`,
    requestWindow: (keyId, window) => `${base}{${keyId}}:rpm:${window}`,
    tokenWindow: (keyId, window) => `${base}{${keyId}}:tpm:${window}`,
    quota: (keyId) => `${base}{${keyId}}:quota`,
    budget: (keyId, period, periodStart) => `${base}{${keyId}}:budget:${period}:${periodStart}`,
    leases: (keyId) => `${base}{${keyId}}:leases`,
    leaseEnds: (keyId) => `${base}{${keyId}}:lease-ends`,
    tokensHeld: (keyId) => `${base}{${keyId}}:tokens-held`,
    tokensHeldEnds: (keyId) => `${base}{${keyId}}:tokens-held-ends`,
  };
}
