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

/** Resolves once `redis` can take commands (a fail-fast connection refuses them until then). */
export async function redisReady(redis: Redis, timeoutMs = 10_000): Promise<void> {
  if (redis.status === "ready") return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      redis.off("ready", onReady);
      reject(new Error(`Redis did not become ready within ${timeoutMs} ms`));
    }, timeoutMs);
    const onReady = () => {
      clearTimeout(timer);
      resolve();
    };
    redis.once("ready", onReady);
  });
}
