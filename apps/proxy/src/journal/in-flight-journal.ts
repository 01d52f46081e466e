import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import type { BillingEvent } from "@gateway/contracts";
import type { Logger } from "@gateway/logger";
import { journalKeys, removeJournal, writeJournalCheckpoint, type HeldReservation, type JournalEntry, type JournalMeta, type RedisClient } from "@gateway/redis-store";
import type { InFlightRegistry, InFlightRequest } from "../relay/in-flight.ts";

/**
 * How long a process counts as alive after a checkpoint: ten checkpoints, at least 5 s (a GC pause
 * or a slow Redis reply is not a death), at most 30 s (the contract's row within 60 s of a kill:
 * this, the sweeper's interval and the billing queue's lag).
 */
export function heartbeatMs(checkpointMs: number): number {
  return Math.min(30_000, Math.max(5_000, checkpointMs * 10));
}

/**
 * How soon after its admission a request is first journaled (with the others admitted meanwhile,
 * in one call): a kill within this window loses the request's row. Requests shorter than it never
 * cost a journal write.
 */
export const NEW_ENTRY_DELAY_MS = 100;

export interface InFlightJournalOptions {
  redis: RedisClient;
  prefix: string;
  inFlight: InFlightRegistry;
  /** What each request holds of its key's limits (`Limiter.reservation`). */
  reservation: (requestId: string) => HeldReservation | null;
  /** `LimitStore.processTag`: the sweeper drops this process's leases by it. */
  processTag: string;
  checkpointMs: number;
  logger: Logger;
}

/**
 * This process's part of the journal of requests in flight (packages/redis-store's
 * in-flight-journal.ts). Nothing is written on a request's path: every JOURNAL_CHECKPOINT_MS one
 * script call writes the heartbeat, the requests admitted since the last checkpoint and the usage
 * of those whose progress changed, and removes those that ended without a billing event. An entry
 * goes as soon as the queue has acknowledged its request's event (`queued`, from the producer).
 *
 * New requests are written NEW_ENTRY_DELAY_MS after their admission (one call for all admitted
 * meanwhile, entries only), not at the next checkpoint.
 *
 * Loss bounds on SIGKILL/OOM: a journaled request is billed for its usage at the last checkpoint,
 * so at most JOURNAL_CHECKPOINT_MS of its output goes unbilled (with the estimate's error). A
 * request admitted less than NEW_ENTRY_DELAY_MS (plus a Redis round trip) before the kill is not
 * journaled yet: it gets no row, and what it reserved stays held (a lease's slice until Redis drops
 * it, LEASE_HOLD_MS; its own reservation until the key's counters are rebuilt from the ledger). A
 * request whose event was recorded but not yet queued keeps its entry, so the sweeper bills it
 * from its last checkpoint.
 */
export class InFlightJournal {
  readonly processId = `${hostname()}-${process.pid}-${randomBytes(4).toString("hex")}`;
  private readonly options: InFlightJournalOptions;
  private readonly meta: JournalMeta;
  /** Request ids in Redis, with the usage last written for each (as JSON, to skip unchanged ones). */
  private readonly written = new Map<string, string>();
  /** Requests whose billing event is recorded: not written again, deleted once queued. */
  private readonly finishing = new Set<string>();
  /** Written entries to delete at the next checkpoint. */
  private deletes: string[] = [];
  private timer: NodeJS.Timeout | null = null;
  /** The write of newly admitted requests, when one is due. */
  private soon: NodeJS.Timeout | null = null;
  private writing: Promise<void> | null = null;
  private registered = false;

  constructor(options: InFlightJournalOptions) {
    this.options = options;
    this.meta = { processTag: options.processTag, pid: process.pid, host: hostname() };
  }

  start(): void {
    if (this.timer !== null) return;
    this.timer = setInterval(() => void this.checkpoint(), this.options.checkpointMs);
    this.timer.unref();
    this.options.inFlight.onAdd = () => this.admitted();
    void this.checkpoint();
  }

  /** A request was admitted: it is written with the others of the next NEW_ENTRY_DELAY_MS. */
  private admitted(): void {
    if (this.soon !== null || this.timer === null) return;
    this.soon = setTimeout(() => {
      this.soon = null;
      // A write under way started before these requests: theirs follows it.
      void (this.writing ?? Promise.resolve()).then(() => this.checkpoint(true));
    }, Math.min(NEW_ENTRY_DELAY_MS, this.options.checkpointMs));
    this.soon.unref();
  }

  /** The request's billing event exists (the producer recorded it): its entry stays as it is until queued. */
  recorded(requestId: string): void {
    this.finishing.add(requestId);
  }

  /**
   * The queue acknowledged these events: their entries go at once (one call per batch, off every
   * response's path), so a sweeper never settles the limits of a request the proxy settled itself.
   */
  queued(events: readonly Pick<BillingEvent, "requestId">[]): void {
    const gone: string[] = [];
    for (const { requestId } of events) {
      this.finishing.delete(requestId);
      if (this.written.delete(requestId)) gone.push(requestId);
    }
    this.drop(gone);
  }

  /** Deletes written entries now; sent after any checkpoint that wrote them (one connection, in order), else with the next one. */
  private drop(requestIds: string[]): void {
    if (requestIds.length === 0) return;
    const { redis, prefix } = this.options;
    redis.hdel(journalKeys(prefix).process(this.processId), ...requestIds).catch(() => this.deletes.push(...requestIds));
  }

  /**
   * Writes one checkpoint now (one at a time: a slow write makes the next tick skip, not pile up);
   * `newOnly`: only the requests never written yet (their first write soon after admission).
   */
  checkpoint(newOnly = false): Promise<void> {
    this.writing ??= this.write(newOnly).finally(() => (this.writing = null));
    return this.writing;
  }

  private async write(newOnly: boolean): Promise<void> {
    const { inFlight, redis, prefix } = this.options;
    const now = Date.now();
    const upserts: JournalEntry[] = [];
    const usages: [string, string][] = [];
    for (const request of inFlight.entries()) {
      if (this.finishing.has(request.requestId) || (newOnly && this.written.has(request.requestId))) continue;
      const usage = request.progress();
      const usageJson = JSON.stringify(usage);
      if (this.written.get(request.requestId) === usageJson) continue;
      upserts.push(this.entry(request, usage, now));
      usages.push([request.requestId, usageJson]);
    }
    // A written request that left without a billing event (refused before any upstream call).
    for (const requestId of this.written.keys()) {
      if (inFlight.get(requestId) === undefined && !this.finishing.has(requestId)) {
        this.written.delete(requestId);
        this.deletes.push(requestId);
      }
    }
    for (const requestId of this.finishing) if (!this.written.has(requestId) && inFlight.get(requestId) === undefined) this.finishing.delete(requestId);
    const deletes = this.deletes;
    this.deletes = [];
    try {
      const known = await writeJournalCheckpoint(redis, prefix, { processId: this.processId, heartbeatMs: heartbeatMs(this.options.checkpointMs), meta: this.meta, upserts, deletes });
      if (!known && this.registered) {
        // Its heartbeat was gone: taken for dead after a stall longer than it (a sweeper billed the
        // entries `interrupted`; their real events then bill nothing more, the ledger keeps the
        // first row), or Redis lost its data. Either way every open request is written again.
        this.options.logger.error({ processId: this.processId }, "in-flight journal was gone from Redis (swept after a stall, or Redis lost its data); writing it again");
        this.written.clear();
        return;
      }
      this.registered = true;
      // A request queued (or ended) while this write was out was not known written then: its entry goes now.
      const ended: string[] = [];
      for (const [requestId, usageJson] of usages) {
        if (this.finishing.has(requestId) || inFlight.get(requestId) !== undefined) this.written.set(requestId, usageJson);
        else ended.push(requestId);
      }
      this.drop(ended);
    } catch (error) {
      // Redis away: the same entries and deletes go with the next checkpoint.
      this.deletes.push(...deletes);
      this.options.logger.warn({ err: (error as Error).message }, "in-flight journal checkpoint not written");
    }
  }

  private entry(request: InFlightRequest, usage: JournalEntry["usage"], now: number): JournalEntry {
    return {
      requestId: request.requestId,
      apiKeyId: request.keyId,
      vendorId: request.vendorId,
      serverOption: request.serverOption,
      model: request.model,
      endpoint: request.endpoint as JournalEntry["endpoint"],
      stream: request.stream,
      upstream: request.upstream,
      upstreamModel: request.upstreamModel,
      startedAt: request.startedAt,
      usage,
      checkpointAt: now,
      reservation: this.options.reservation(request.requestId),
    };
  }

  /**
   * Shutdown, after the billing producer's flush: the heartbeat and the journal go. Requests still
   * open, or events the queue did not take before the deadline, keep their entries instead (one
   * last checkpoint), and the heartbeat runs out: the sweeper bills them.
   */
  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    if (this.soon !== null) clearTimeout(this.soon);
    this.timer = null;
    this.soon = null;
    await this.writing;
    const { redis, prefix, inFlight, logger } = this.options;
    try {
      if (inFlight.size === 0 && this.finishing.size === 0) return await removeJournal(redis, prefix, this.processId);
      await this.checkpoint();
      logger.warn({ open: inFlight.size, unqueued: this.finishing.size }, "in-flight journal left for the sweeper at shutdown");
    } catch (error) {
      logger.warn({ err: (error as Error).message }, "in-flight journal not removed at shutdown; the sweeper will bill what it holds");
    }
  }
}
