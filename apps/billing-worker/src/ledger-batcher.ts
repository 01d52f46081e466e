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
  /** The last entry of its job (`record` is a job of one entry; `recordMany` one of many). */
  lastOfJob: boolean;
}

/**
 * Gathers the events of the jobs the worker holds and writes them to the ledger in batches: a
 * batch is written once it has `maxSize` entries, once every job the worker may hold is waiting on
 * it or on a batch being written, or `maxWaitMs` after its first entry, whichever comes first. Jobs
 * are counted as jobs (a batch job's events are one job), never as entries.
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
  /** Jobs with an entry still waiting (their last entry not yet taken into a batch). */
  private jobsWaiting = 0;
  /** Jobs whose last entry is in a batch being written. */
  private jobsWriting = 0;
  private readonly written: ((entries: readonly LedgerEntry[], outcomes: readonly RecordOutcome[], seconds: number) => void)[] = [];

  private readonly options: LedgerBatcherOptions;

  constructor(options: LedgerBatcherOptions) {
    this.options = options;
  }

  /** Calls `listener` after each batch that committed, with its entries, their outcomes and how long its statement took. */
  onWritten(listener: (entries: readonly LedgerEntry[], outcomes: readonly RecordOutcome[], seconds: number) => void): void {
    this.written.push(listener);
  }

  /** One job's one event: settles when its batch has committed (or failed). */
  record(event: BillingEvent, costNano: bigint): Promise<RecordOutcome> {
    return this.enqueue([{ event, costNano }])[0]!;
  }

  /** One job's many events (a batch job): each settles on its own, as `record`'s would. */
  recordMany(entries: readonly LedgerEntry[]): Promise<PromiseSettledResult<RecordOutcome>[]> {
    return Promise.allSettled(this.enqueue(entries));
  }

  private enqueue(entries: readonly LedgerEntry[]): Promise<RecordOutcome>[] {
    if (entries.length === 0) return [];
    const promises = entries.map((entry) => new Promise<RecordOutcome>((resolve, reject) => this.waiting.push({ entry, resolve, reject, lastOfJob: false })));
    this.waiting[this.waiting.length - 1]!.lastOfJob = true;
    this.jobsWaiting += 1;
    const { maxSize, maxWaitMs, capacity } = this.options;
    if (this.waiting.length >= maxSize || this.jobsWaiting + this.jobsWriting >= capacity) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), maxWaitMs);
    return promises;
  }

  /** Writes every full batch, and what is left too (one batch) when the wait is over or the worker can get no other job. */
  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const { maxSize, maxWaitMs } = this.options;
    let first = true;
    while (this.waiting.length >= maxSize || (first && this.waiting.length > 0)) {
      first = false;
      this.take(this.waiting.splice(0, maxSize));
    }
    if (this.waiting.length > 0) this.timer = setTimeout(() => this.flush(), maxWaitMs);
  }

  private take(batch: Waiting[]): void {
    const jobs = batch.reduce((count, waiting) => count + (waiting.lastOfJob ? 1 : 0), 0);
    this.jobsWaiting -= jobs;
    this.jobsWriting += jobs;
    void this.write(batch).finally(() => {
      this.jobsWriting -= jobs;
    });
  }

  private async write(batch: Waiting[]): Promise<void> {
    try {
      const started = performance.now();
      const entries = batch.map((waiting) => waiting.entry);
      const outcomes = await this.options.write(entries);
      const seconds = (performance.now() - started) / 1000;
      batch.forEach((waiting, index) => waiting.resolve(outcomes[index]!));
      for (const listener of this.written) listener(entries, outcomes, seconds);
    } catch (error) {
      if (batch.length === 1 || !this.options.isPermanent(error)) {
        for (const waiting of batch) waiting.reject(error);
        return;
      }
      this.options.logger.warn({ entries: batch.length, err: error instanceof Error ? error.message : String(error) }, "a ledger batch failed on one entry; writing its entries one by one");
      for (const waiting of batch) {
        const started = performance.now();
        await this.options.write([waiting.entry]).then((outcomes) => {
          waiting.resolve(outcomes[0]!);
          for (const listener of this.written) listener([waiting.entry], outcomes, (performance.now() - started) / 1000);
        }, waiting.reject);
      }
    }
  }
}
