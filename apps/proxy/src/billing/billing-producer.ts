import type { Queue } from "bullmq";
import { BILLING_JOB, BILLING_JOB_OPTIONS, billingBatchJobId, type BillingBatch, type BillingEvent } from "@gateway/contracts";
import type { Logger } from "@gateway/logger";

/**
 * How long the first event of a batch waits for others, and the least time between the starts of
 * two batches that are not full. Each flush is one BullMQ job holding all its events
 * (`usage-batch`): one add, one fetch and one finish on Redis and the worker, whatever the number
 * of events, where one job per event cost the proxy, Redis and the worker about as much again as
 * the rest of a request (issue 18). 25 ms is nothing to the ledger, and it bounds what a killed
 * process (SIGKILL, OOM) can lose, with QUIET_MS more at most; SIGTERM flushes.
 */
export const FLUSH_DELAY_MS = 25;
/** Most events in one job; a full batch is written at once. */
export const BATCH_SIZE = 500;

/**
 * When a batch is due while responses are finishing (one within the last QUIET_MS), it is written
 * just after the next one finishes, not whenever its timer fires: at low concurrency the timer
 * lands inside a request most of the time, and the write's work (the job's JSON, the command, the
 * socket write; Redis's script meanwhile) was the largest share of the proxy's own p99 at
 * concurrency 1 (issue 18). Under load the next response finishes within microseconds; when none
 * does, the write goes QUIET_MS late at most.
 */
export const QUIET_MS = 5;

/** A batch waiting for its time (`timer`), then, when `due`, for the next response to finish. */
interface Pause {
  resolve: () => void;
  timer: NodeJS.Timeout;
  due: boolean;
}

/**
 * Puts billing events on the queue off the response's critical path. `record` only appends to a
 * buffer; a flush loop takes up to BATCH_SIZE events at a time and writes them as one job. A batch
 * is fixed once taken: while Redis is away the loop re-sends the same events under the same job id
 * (`billingBatchJobId`), so a write whose reply was lost is not queued twice, and the ledger's
 * request-id key makes even a second job a no-op. The buffer holds up to `limit` events meanwhile;
 * `close` flushes what is left.
 */
export class BillingProducer {
  private buffer: BillingEvent[] = [];
  /** The batch being written (taken from the buffer, not yet acknowledged by Redis). */
  private sending: BillingEvent[] = [];
  private flushing: Promise<void> | null = null;
  /** The drain loop's wait for company (before a batch that is not full), if it is waiting. */
  private pause: Pause | null = null;
  /** When the last recorded event's response finished (its `finishedAt`). */
  private lastFinishedAt = 0;
  private retryDelayMs = 100;
  /** Set by `close`: what is left goes at once, without waiting for company. */
  private closing = false;
  private readonly queue: Queue;
  private readonly logger: Logger;
  private readonly limit: number;
  dropped = 0;
  /** Sees every batch the queue has acknowledged (the in-flight journal then drops their entries). */
  onQueued: (events: readonly BillingEvent[]) => void = () => undefined;

  private readonly onRecord: (event: BillingEvent) => void;

  /** `onRecord` sees every event as it is recorded (the limiter settles reservations there). */
  constructor(queue: Queue, logger: Logger, limit: number, onRecord: (event: BillingEvent) => void = () => undefined) {
    this.queue = queue;
    this.logger = logger;
    this.limit = limit;
    this.onRecord = onRecord;
  }

  /** Events recorded and not yet acknowledged by the queue. */
  get pending(): number {
    return this.buffer.length + this.sending.length;
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
    this.lastFinishedAt = event.finishedAt;
    const pause = this.pause;
    if (pause !== null) {
      // A full batch goes at once; a due one just after this response's turn (its end is written).
      if (this.buffer.length >= BATCH_SIZE) this.endPause(pause);
      else if (pause.due) {
        pause.due = false;
        setImmediate(() => this.endPause(pause));
      }
    }
    // A running drain picks the event up; otherwise wait briefly for company, unless the batch is full.
    if (this.flushing === null) void this.start(this.buffer.length >= BATCH_SIZE ? 0 : FLUSH_DELAY_MS);
  }

  /** Writes everything buffered, without waiting for company; resolves when the buffer was empty at some point. */
  flush(): Promise<void> {
    const flushing = this.start(0);
    if (this.pause !== null) this.endPause(this.pause);
    return flushing;
  }

  /** The drain loop, after `pauseMs` of waiting for company (unless one runs already). */
  private start(pauseMs: number): Promise<void> {
    this.flushing ??= this.drain(pauseMs).finally(() => {
      this.flushing = null;
      // An event recorded between the drain's last check and here would otherwise wait for the next one.
      if (this.buffer.length > 0) void this.start(FLUSH_DELAY_MS);
    });
    return this.flushing;
  }

  /**
   * Waits `ms` for company; then, while responses are finishing (one within QUIET_MS), until the
   * next one finishes (`record`), or QUIET_MS more at most. Ended early by `flush` and by a full batch.
   */
  private waitForCompany(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const pause: Pause = {
        resolve,
        due: false,
        timer: setTimeout(() => {
          if (this.closing || Date.now() - this.lastFinishedAt >= QUIET_MS) return this.endPause(pause);
          pause.due = true;
          pause.timer = setTimeout(() => this.endPause(pause), QUIET_MS);
        }, ms),
      };
      this.pause = pause;
    });
  }

  private endPause(pause: Pause): void {
    if (this.pause !== pause) return;
    this.pause = null;
    clearTimeout(pause.timer);
    pause.resolve();
  }

  private async drain(pauseMs: number): Promise<void> {
    if (pauseMs > 0 && !this.closing) await this.waitForCompany(pauseMs);
    while (this.buffer.length > 0) {
      const started = Date.now();
      this.sending = this.buffer.length <= BATCH_SIZE ? this.buffer : this.buffer.slice(0, BATCH_SIZE);
      this.buffer = this.buffer.length <= BATCH_SIZE ? [] : this.buffer.slice(BATCH_SIZE);
      const data: BillingBatch = { events: this.sending };
      const opts = { ...BILLING_JOB_OPTIONS, jobId: billingBatchJobId(this.sending) };
      for (;;) {
        try {
          await this.queue.add(BILLING_JOB.batch, data, opts);
          this.onQueued(this.sending);
          this.sending = [];
          this.retryDelayMs = 100;
          break;
        } catch (error) {
          this.logger.warn({ err: error, pending: this.pending }, "billing queue write failed; will retry");
          await new Promise((resolve) => setTimeout(resolve, this.retryDelayMs));
          this.retryDelayMs = Math.min(this.retryDelayMs * 2, 5_000);
        }
      }
      // Events that came while the add was out wait out the rest of the delay for company, as the
      // first event of a batch does, unless they fill a batch: under steady load one job per
      // FLUSH_DELAY_MS, not one per Redis round trip (each job costs Redis and the worker the same
      // whatever its size).
      const rest = FLUSH_DELAY_MS - (Date.now() - started);
      if (rest > 0 && !this.closing && this.buffer.length > 0 && this.buffer.length < BATCH_SIZE) await this.waitForCompany(rest);
    }
  }

  /** Flushes with a deadline; what could not be written is logged with its request ids. */
  async close(deadlineMs: number): Promise<void> {
    this.closing = true;
    const timeout = new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), deadlineMs).unref());
    const result = await Promise.race([this.flush(), timeout]);
    if (result === "timeout" && this.pending > 0) {
      this.logger.error({ lost: [...this.sending, ...this.buffer].map((event) => event.requestId) }, "billing events could not be flushed before shutdown");
    }
  }
}
