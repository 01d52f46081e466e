import type { Logger } from "@gateway/logger";

/**
 * A control plane's background pass (the wallet check, subscription renewal), run every
 * `intervalMs` (0: never) on an unref'd timer. One at a time: a pass still running is joined, not
 * doubled, and `stop` waits for it. Subclasses write `pass()`; tests call `runOnce()`.
 */
export abstract class PeriodicPass<Report> {
  private readonly name: string;
  private readonly intervalMs: number;
  private readonly passLogger: Logger;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<Report> | null = null;

  protected constructor(name: string, intervalMs: number, logger: Logger) {
    this.name = name;
    this.intervalMs = intervalMs;
    this.passLogger = logger;
  }

  start(): void {
    if (this.intervalMs <= 0 || this.timer) return;
    this.timer = setInterval(() => void this.runOnce().catch((error: unknown) => this.passLogger.warn({ err: (error as Error).message }, `${this.name} failed`)), this.intervalMs);
    this.timer.unref();
  }

  /** One pass; a pass still running is joined, not doubled. */
  runOnce(): Promise<Report> {
    this.running ??= this.pass().finally(() => (this.running = null));
    return this.running;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
  }

  protected abstract pass(): Promise<Report>;
}
