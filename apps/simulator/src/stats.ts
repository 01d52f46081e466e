/** Recorded requests (the last `maxRecords`, newest last) plus running totals. */
import type { Outcome, ReportedUsage, StatsRecord } from './types.ts';

export interface StatsTotals {
  requests: number;
  ok: number;
  failed: number;
  reset: number;
  cut: number;
  hang: number;
  aborted: number;
  input_tokens: number;
  output_tokens: number;
  cached_tokens: number;
  images: number;
}

function emptyTotals(): StatsTotals {
  return {
    requests: 0, ok: 0, failed: 0, reset: 0, cut: 0, hang: 0, aborted: 0,
    input_tokens: 0, output_tokens: 0, cached_tokens: 0, images: 0,
  };
}

export class SimulatorStats {
  readonly maxRecords: number;
  totals: StatsTotals = emptyTotals();
  /** Ring buffer of records; `#head` is the slot the next record goes to. */
  #ring: StatsRecord[] = [];
  #head = 0;
  #nextId = 1;

  constructor(maxRecords = 1000) {
    this.maxRecords = Math.max(1, maxRecords);
  }

  /** Recorded requests, oldest first, newest last (at most `maxRecords`; a fresh array on each read). */
  get requests(): StatsRecord[] {
    if (this.#ring.length < this.maxRecords) return this.#ring.slice();
    return [...this.#ring.slice(this.#head), ...this.#ring.slice(0, this.#head)];
  }

  /** Start a record (outcome "pending"); finish it with `finish`. */
  begin(fields: Omit<StatsRecord, 'id' | 'outcome' | 'status' | 'usage' | 'chunksSent' | 'startedAt' | 'durationMs' | 'flushedAt'>): StatsRecord {
    const record: StatsRecord = {
      id: `simreq_${this.#nextId++}`,
      ...fields,
      outcome: 'pending',
      status: null,
      usage: null,
      chunksSent: 0,
      startedAt: Date.now(),
      durationMs: null,
      flushedAt: null,
    };
    this.totals.requests += 1;
    if (this.#ring.length < this.maxRecords) this.#ring.push(record);
    else this.#ring[this.#head] = record;
    this.#head = (this.#head + 1) % this.maxRecords;
    return record;
  }

  /** Set the final outcome once; later calls are ignored. */
  finish(record: StatsRecord, outcome: Exclude<Outcome, 'pending'>, usage: ReportedUsage | null = null): void {
    if (record.outcome !== 'pending') return;
    record.outcome = outcome;
    record.durationMs = Date.now() - record.startedAt;
    this.totals[outcome] += 1;
    if (usage) {
      record.usage = usage;
      this.totals.input_tokens += usage.input_tokens;
      this.totals.output_tokens += usage.output_tokens;
      this.totals.cached_tokens += usage.cached_tokens;
      this.totals.images += usage.images;
    }
  }

  /** Newest record, if any. */
  get last(): StatsRecord | undefined {
    if (this.#ring.length === 0) return undefined;
    return this.#ring[(this.#head - 1 + this.maxRecords) % this.maxRecords] ?? this.#ring.at(-1);
  }

  clear(): void {
    this.#ring = [];
    this.#head = 0;
    this.totals = emptyTotals();
  }

  toJSON(): { totals: StatsTotals; requests: StatsRecord[] } {
    return { totals: this.totals, requests: this.requests };
  }
}
