import type { Queue } from "bullmq";
import type { BillingEvent } from "@gateway/contracts";
import type { Logger } from "@gateway/logger";

/**
 * How long the first event of a batch waits for others. Each batch is one BullMQ `addBulk` (a
 * pipeline, one socket write and a Redis round trip) whose fixed cost to the proxy is about what
 * its jobs cost together at 15 jobs a batch (CPU profile, docs/benchmarks.md): flushing on every
 * loop turn sent batches of one or two jobs and paid that per request; 10 ms still left a third
 * of the billing CPU in per-batch work at 1,500 requests/s. 25 ms is nothing to the ledger, and
 * it bounds what a killed process (SIGKILL, OOM) can lose; SIGTERM flushes.
 */
const FLUSH_DELAY_MS = 25;
/** Events per `addBulk`; a full batch is written at once. */
const BATCH_SIZE = 500;

const JOB_OPTIONS = {
  attempts: 20,
  backoff: { type: "exponential", delay: 500 },
  removeOnComplete: { count: 10_000 },
  removeOnFail: false,
} as const;

/**
 * Puts billing events on the queue off the response's critical path. `record` only appends to a
 * buffer; a flush loop writes the buffer in batches (`addBulk`, the request id as job id, so a
 * re-sent batch never bills twice). While Redis is away the buffer holds up to `limit` events and
 * the loop retries; `close` flushes what is left.
 */
export class BillingProducer {
  private buffer: BillingEvent[] = [];
  private flushing: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private retryDelayMs = 100;
  private readonly queue: Queue;
  private readonly logger: Logger;
  private readonly limit: number;
  dropped = 0;

  private readonly onRecord: (event: BillingEvent) => void;

  /** `onRecord` sees every event as it is recorded (the limiter settles reservations there). */
  constructor(queue: Queue, logger: Logger, limit: number, onRecord: (event: BillingEvent) => void = () => undefined) {
    this.queue = queue;
    this.logger = logger;
    this.limit = limit;
    this.onRecord = onRecord;
  }

  get pending(): number {
    return this.buffer.length;
  }

  record(event: BillingEvent): void {
    this.onRecord(event);
    if (this.buffer.length >= this.limit) {
      // The buffer is full only after Redis has been away for a long time; say so loudly.
      this.dropped += 1;
      this.logger.error({ requestId: event.requestId }, "billing buffer full; event not queued");
      return;
    }
    this.buffer.push(event);
    // A running drain picks the event up; otherwise wait briefly for company, unless the batch is full.
    if (this.flushing) return;
    if (this.buffer.length >= BATCH_SIZE) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), FLUSH_DELAY_MS);
  }

  /** Writes everything buffered; resolves when the buffer was empty at some point. */
  flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    this.flushing ??= this.drain().finally(() => {
      this.flushing = null;
      // An event recorded between the drain's last check and here would otherwise wait for the next one.
      if (this.buffer.length > 0) this.timer ??= setTimeout(() => void this.flush(), FLUSH_DELAY_MS);
    });
    return this.flushing;
  }

  private async drain(): Promise<void> {
    while (this.buffer.length > 0) {
      const batch = this.buffer.slice(0, BATCH_SIZE);
      try {
        await this.queue.addBulk(batch.map((event) => ({ name: "usage", data: event, opts: { ...JOB_OPTIONS, jobId: event.requestId } })));
        this.buffer.splice(0, batch.length);
        this.retryDelayMs = 100;
      } catch (error) {
        this.logger.warn({ err: error, pending: this.buffer.length }, "billing queue write failed; will retry");
        await new Promise((resolve) => setTimeout(resolve, this.retryDelayMs));
        this.retryDelayMs = Math.min(this.retryDelayMs * 2, 5_000);
      }
    }
  }

  /** Flushes with a deadline; what could not be written is logged with its request ids. */
  async close(deadlineMs: number): Promise<void> {
    const timeout = new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), deadlineMs).unref());
    const result = await Promise.race([this.flush(), timeout]);
    if (result === "timeout" && this.buffer.length > 0) {
      this.logger.error({ lost: this.buffer.map((event) => event.requestId) }, "billing events could not be flushed before shutdown");
    }
  }
}
