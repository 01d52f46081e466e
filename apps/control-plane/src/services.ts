import { createDb, type Db } from "@gateway/db";
import { createLogger, type Logger } from "@gateway/logger";
import { connectRedisFromConfig, LimitStore, RecordStore, type RedisClient } from "@gateway/redis-store";
import type { ControlPlaneConfig } from "./config.ts";

/** Every client the control plane uses, built once and passed around as one object. */
export interface ControlPlaneServices {
  config: ControlPlaneConfig;
  logger: Logger;
  db: Db;
  redis: RedisClient;
  records: RecordStore;
  /** The limit counters (quota and budget spend) the proxies keep; set from the ledger here. */
  limits: LimitStore;
  close(): Promise<void>;
}

export function createControlPlaneServices(config: ControlPlaneConfig, logger = createLogger({ name: "control-plane", level: config.LOG_LEVEL })): ControlPlaneServices {
  const db = createDb({ url: config.DATABASE_URL, poolSize: config.DB_POOL_SIZE });
  // A write waits for at most one reconnect attempt, then fails: a revocation that cannot reach
  // Redis must fail rather than report success. Commands issued while connecting are queued.
  const redis = connectRedisFromConfig(config, { name: "control-plane", extra: { maxRetriesPerRequest: 1 } });
  redis.on("error", (error: Error) => logger.warn({ err: error.message }, "redis connection error"));
  return {
    config,
    logger,
    db,
    redis,
    records: new RecordStore(redis, config.REDIS_PREFIX),
    limits: new LimitStore(redis, config.REDIS_PREFIX),
    async close() {
      await db.close();
      redis.disconnect();
    },
  };
}
