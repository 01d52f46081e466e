import { Queue } from "bullmq";
import { BILLING_QUEUE } from "@gateway/contracts";
import { createDb, type Db } from "@gateway/db";
import { createLogger, type Logger } from "@gateway/logger";
import { connectRedisFromConfig, redisKeys, type RedisClient } from "@gateway/redis-store";
import type { BillingWorkerConfig } from "./config.ts";
import { PriceLoader } from "./price-loader.ts";

/** Every client the billing worker uses, built once at boot and passed around as one object. */
export interface BillingWorkerServices {
  config: BillingWorkerConfig;
  logger: Logger;
  db: Db;
  /** Shared by the BullMQ worker (which opens its own blocking connection) and the health checks. */
  redis: RedisClient;
  /** The billing queue, for its counts only; jobs are consumed by the worker. */
  queue: Queue;
  queuePrefix: string;
  prices: PriceLoader;
  close(): Promise<void>;
}

export function createBillingWorkerServices(
  config: BillingWorkerConfig,
  logger = createLogger({ name: "billing-worker", level: config.LOG_LEVEL }),
): BillingWorkerServices {
  const db = createDb({
    url: config.DATABASE_URL,
    poolSize: config.DB_POOL_SIZE,
    idleTimeoutMs: config.DB_IDLE_TIMEOUT_MS,
    preparedStatements: config.DB_PREPARED_STATEMENTS,
  });
  // Not fail-fast: BullMQ requires maxRetriesPerRequest null, and the worker should ride out a
  // Redis restart rather than fail jobs.
  const redis = connectRedisFromConfig(config, { name: "billing-worker" });
  redis.on("error", (error: Error) => logger.warn({ err: error.message }, "redis connection error"));
  const queuePrefix = redisKeys(config.REDIS_PREFIX).queuePrefix;
  const queue = new Queue(BILLING_QUEUE, { connection: redis, prefix: queuePrefix });
  queue.on("error", (error: Error) => logger.warn({ err: error.message }, "billing queue error"));
  return {
    config,
    logger,
    db,
    redis,
    queue,
    queuePrefix,
    prices: new PriceLoader(db.prisma, { ttlMs: config.PRICE_CACHE_TTL_MS }),
    async close() {
      await queue.close();
      await db.close();
      redis.disconnect();
    },
  };
}
