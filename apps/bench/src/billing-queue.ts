import { BILLING_QUEUE } from "@gateway/contracts";
import { connectRedis, redisKeys } from "@gateway/redis-store";

/**
 * The bench runs no billing worker (it would compete for the two cores), so the proxy's billing
 * jobs pile up in Redis: this deletes the run's queue between rows. Only keys under the run's
 * private prefix are touched.
 */
export function billingQueueCleaner(redisUrl: string, prefix: string) {
  const redis = connectRedis(redisUrl, { name: "bench" });
  const pattern = `${redisKeys(prefix).queuePrefix}:${BILLING_QUEUE}:*`;
  return {
    async clear(): Promise<number> {
      let deleted = 0;
      let cursor = "0";
      do {
        const [next, keys] = await redis.scan(cursor, "MATCH", pattern, "COUNT", 1000);
        cursor = next;
        if (keys.length > 0) deleted += await redis.unlink(...keys);
      } while (cursor !== "0");
      return deleted;
    },
    close(): void {
      redis.disconnect();
    },
  };
}
