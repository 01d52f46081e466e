import { randomUUID } from "node:crypto";
import type { ControlPlaneServices } from "./services.ts";
import { rebuildRedis } from "./rebuild-redis.ts";

/**
 * Redis holds nothing Postgres cannot rebuild (contract section 13). When it comes back empty
 * (restarted without persistence, flushed, failed over to an empty replica), the routing snapshot
 * is gone: every `intervalMs` each control plane checks for it and, if missing, rebuilds every
 * record from Postgres, without an operator. The snapshot is the store's "filled" mark (written
 * last by the rebuild), so proxies answer 503, never a false 401 or 404, until it is back.
 *
 * Several control planes notice together; a short Redis lock lets one rebuild while the others
 * wait for the next tick (a second rebuild would be harmless, only wasted work).
 */
export class RedisWatchdog {
  private readonly services: ControlPlaneServices;
  private readonly intervalMs: number;
  private readonly lockKey: string;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  /** Rebuilds this process made after a loss (for tests and logs). */
  rebuilds = 0;

  constructor(services: ControlPlaneServices, intervalMs: number) {
    this.services = services;
    this.intervalMs = intervalMs;
    this.lockKey = `${services.records.keys.snapshot}:rebuild-lock`;
  }

  start(): void {
    this.timer = setInterval(() => void this.check(), this.intervalMs);
    this.timer.unref();
    // A reconnect is the likeliest moment to find Redis empty: look at once.
    this.services.redis.on("ready", () => void this.check());
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One look; overlapping calls share the one in flight. */
  check(): Promise<void> {
    this.running ??= this.look().finally(() => (this.running = null));
    return this.running;
  }

  private async look(): Promise<void> {
    const { redis, logger } = this.services;
    try {
      if ((await redis.exists(this.services.records.keys.snapshot)) === 1) return;
      const owner = randomUUID();
      if ((await redis.set(this.lockKey, owner, "PX", 60_000, "NX")) !== "OK") return;
      try {
        logger.warn("the routing snapshot is missing from Redis; rebuilding every record from Postgres");
        const started = Date.now();
        const rebuilt = await rebuildRedis(this.services);
        this.rebuilds += 1;
        logger.warn({ ...rebuilt, ms: Date.now() - started }, "redis records rebuilt after a loss");
      } finally {
        if ((await redis.get(this.lockKey)) === owner) await redis.del(this.lockKey);
      }
    } catch (error) {
      // Redis away or Postgres failing: the next tick tries again.
      logger.warn({ err: (error as Error).message }, "redis watchdog check failed");
    }
  }
}
