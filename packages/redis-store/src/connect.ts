import { Redis, type RedisOptions } from "ioredis";

/**
 * One way to open Redis for every app. `failFast` (the proxy's hot path) turns off the offline
 * queue so a command fails at once while Redis is away instead of waiting behind a reconnect.
 */
export function connectRedis(url: string, options: { failFast?: boolean; name?: string; extra?: RedisOptions } = {}): Redis {
  return new Redis(url, {
    connectionName: options.name,
    maxRetriesPerRequest: options.failFast ? 1 : null,
    enableOfflineQueue: !options.failFast,
    retryStrategy: (attempt) => Math.min(attempt * 100, 2000),
    ...options.extra,
  });
}
