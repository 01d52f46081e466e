import type { BillingEvent } from "@gateway/contracts";
import type { Logger } from "@gateway/logger";
import type { LedgerEntry, RecordOutcome } from "./record-usage.ts";

export interface LedgerBatcherOptions {
  /** Writes a batch in one statement and returns each entry's outcome in order (`recordUsageBatch`). */
  write(entries: readonly LedgerEntry[]): Promise<RecordOutcome[]>;
  /** True for an error the same entries will hit on every retry (one bad entry fails the statement). */
  isPermanent(error: unknown): boolean;
  /** Most entries in one statement (WORKER_BATCH_SIZE). */
  maxSize: number;
  /** Longest time an entry waits for others before its batch is written (WORKER_BATCH_WAIT_MS). */
  maxWaitMs: number;
  /**
   * Most jobs the worker holds at once (WORKER_CONCURRENCY): once they all wait here or are being
   * written, no other entry can come, so the batch is written without waiting.
   */
  capacity: number;
  logger: Logger;
}

interface Waiting {
  entry: LedgerEntry;
  resolve(outcome: RecordOutcome): void;
  reject(error: unknown): void;
}

/**
 * Gathers the events of the jobs the worker holds and writes them to the ledger in batches: a
 * batch is written once it has `maxSize` entries, once every job the worker may hold is waiting on
 * it or on a batch being written, or `maxWaitMs` after its first entry, whichever comes first.
 * `record` settles only when the entry's batch has committed (or failed), so a job is acknowledged
 * after its row is in Postgres, never before: a worker that dies mid-batch leaves its jobs to be
 * redone, which the ledger makes a no-op for the rows that had committed.
 *
 * A batch that fails on something transient (Postgres away) fails every job in it, and each is
 * retried. A batch that fails on one entry's permanent error (its api key does not exist) is
 * written again one entry at a time, so only that entry's job fails.
 */
export class LedgerBatcher {
  private waiting: Waiting[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** Entries in batches being written. */
  private writing = 0;
  private readonly written: ((entries: number, seconds: number) => void)[] = [];

  private readonly options: LedgerBatcherOptions;

  constructor(options: LedgerBatcherOptions) {
    this.options = options;
  }

  /** Calls `listener` after each batch that committed, with its size and how long its statement took. */
  onWritten(listener: (entries: number, seconds: number) => void): void {
    this.written.push(listener);
  }

  record(event: BillingEvent, costNano: bigint): Promise<RecordOutcome> {
    return new Promise<RecordOutcome>((resolve, reject) => {
      this.waiting.push({ entry: { event, costNano }, resolve, reject });
      const { maxSize, maxWaitMs, capacity } = this.options;
      if (this.waiting.length >= maxSize || this.waiting.length + this.writing >= capacity) this.flush();
      else this.timer ??= setTimeout(() => this.flush(), maxWaitMs);
    });
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.waiting.splice(0, this.options.maxSize);
    if (this.waiting.length > 0) this.timer = setTimeout(() => this.flush(), this.options.maxWaitMs);
    if (batch.length === 0) return;
    this.writing += batch.length;
    void this.write(batch).finally(() => {
      this.writing -= batch.length;
    });
  }

  private async write(batch: Waiting[]): Promise<void> {
    try {
      const started = performance.now();
      const outcomes = await this.options.write(batch.map((waiting) => waiting.entry));
      const seconds = (performance.now() - started) / 1000;
      batch.forEach((waiting, index) => waiting.resolve(outcomes[index]!));
      for (const listener of this.written) listener(batch.length, seconds);
    } catch (error) {
      if (batch.length === 1 || !this.options.isPermanent(error)) {
        for (const waiting of batch) waiting.reject(error);
        return;
      }
      this.options.logger.warn({ entries: batch.length, err: error instanceof Error ? error.message : String(error) }, "a ledger batch failed on one entry; writing its entries one by one");
      for (const waiting of batch) {
        await this.options.write([waiting.entry]).then(([outcome]) => waiting.resolve(outcome!), waiting.reject);
      }
    }
  }
}
