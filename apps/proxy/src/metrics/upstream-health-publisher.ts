import { hostname } from "node:os";
import type { Logger } from "@gateway/logger";
import { UpstreamHealthWriter, type RedisClient, type UpstreamHealthSnapshot } from "@gateway/redis-store";
import type { CircuitBreaker } from "../relay/circuit-breaker.ts";
import type { UpstreamWindows } from "./upstream-window.ts";

/** How often each proxy process writes its upstream health snapshot. */
export const HEALTH_PUBLISH_MS = 5_000;

/** This process in the health hash: its host and pid (each cluster worker has its own breaker and windows). */
export function healthProcessId(): string {
  return `${hostname()}:${process.pid}`;
}

/**
 * Writes this process's view of every upstream (last minute's attempts, failures by cause, circuit,
 * latency) to Redis every 5 s, off the request path, for the console
 * (`@gateway/redis-store`'s `readUpstreamHealth`). A write that fails (Redis away) is skipped; the
 * next one catches up.
 */
export class UpstreamHealthPublisher {
  private readonly writer: UpstreamHealthWriter;
  private readonly windows: UpstreamWindows;
  private readonly breaker: CircuitBreaker;
  private readonly logger: Pick<Logger, "debug">;
  private timer: NodeJS.Timeout | null = null;

  constructor(options: { redis: RedisClient; prefix: string; windows: UpstreamWindows; breaker: CircuitBreaker; logger: Pick<Logger, "debug">; processId?: string }) {
    this.writer = new UpstreamHealthWriter(options.redis, options.prefix, options.processId ?? healthProcessId());
    this.windows = options.windows;
    this.breaker = options.breaker;
    this.logger = options.logger;
  }

  get processId(): string {
    return this.writer.processId;
  }

  /** The snapshot as it would be written now. */
  snapshot(now = Date.now()): UpstreamHealthSnapshot {
    const names = new Set([...this.windows.names(), ...this.breaker.tracked()]);
    const upstreams: UpstreamHealthSnapshot["upstreams"] = {};
    for (const name of names) upstreams[name] = this.windows.health(name, this.breaker.state(name, now), now);
    return { at: now, upstreams };
  }

  async publish(): Promise<void> {
    await this.writer.write(this.snapshot()).catch((error: unknown) => this.logger.debug({ err: (error as Error).message }, "upstream health not written"));
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.publish(), HEALTH_PUBLISH_MS);
    this.timer.unref();
    void this.publish();
  }

  /** Stops writing and removes this process's field. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.writer.remove().catch(() => undefined);
  }
}
