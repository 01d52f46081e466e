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
 * The longest a request waits for its entry to be written before it calls an upstream, by default
 * (`REDIS_WAIT_MS`). A Redis that hangs with its socket open answers nothing: the request then goes
 * on unjournaled (logged), as it would when Redis refused the write; both are the loss bound of a
 * kill during a Redis outage.
 */
export const WRITE_AHEAD_WAIT_MS = 2_000;

/** One write ahead: the requests that joined it wait on `written` before their first upstream call. */
interface AheadBatch {
  written: Promise<void>;
  settle: () => void;
}

function aheadBatch(): AheadBatch {
  let settle!: () => void;
  const written = new Promise<void>((resolve) => (settle = resolve));
  return { written, settle };
}

export interface InFlightJournalOptions {
  redis: RedisClient;
  prefix: string;
  inFlight: InFlightRegistry;
  /** What each request holds of its key's limits (`Limiter.reservation`). */
  reservation: (requestId: string) => HeldReservation | null;
  /** `LimitStore.processTag`: the sweeper drops this process's leases by it. */
  processTag: string;
  checkpointMs: number;
  /** How long requests wait for their write ahead (WRITE_AHEAD_WAIT_MS by default). */
  writeAheadWaitMs?: number;
  logger: Logger;
}

/**
 * This process's part of the journal of requests in flight (packages/redis-store's
 * in-flight-journal.ts). Every JOURNAL_CHECKPOINT_MS one script call writes the heartbeat, the
 * usage of the requests whose progress changed, and removes those that ended without a billing
 * event. An entry goes as soon as the queue has acknowledged its request's event (`queued`, from
 * the producer).
 *
 * A new request is written ahead (`writeAhead`) before its first upstream call: the relay waits on
 * `admitted`'s promise, so no upstream is ever called (no cost is ever incurred) for a request the
 * journal does not hold. The requests admitted in one turn of the event loop, and all those
 * admitted while a write is out, go in one plain HSET (no script, no heartbeat: the checkpoints
 * keep those); one write is out at a time, so under load a write carries tens of requests and
 * costs each a few microseconds. A request that ends before its write is never written.
 *
 * Loss bounds on SIGKILL/OOM: a journaled request is billed for its usage at the last checkpoint,
 * so at most JOURNAL_CHECKPOINT_MS of its output goes unbilled (with the estimate's error). A kill
 * before a request's entry is written kills it before any upstream call: nothing to bill. While
 * Redis refuses or does not answer a write (WRITE_AHEAD_WAIT_MS), requests go on unjournaled: a kill
 * then loses their rows (Redis and the process down at once). A request
 * whose event was recorded but not yet queued keeps its entry, so the sweeper bills it from its
 * last checkpoint.
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
  /** Requests admitted and not yet written ahead, and the write they wait on. */
  private fresh: InFlightRequest[] = [];
  private freshBatch: AheadBatch | null = null;
  /** A write ahead is out: the requests admitted meanwhile go in one write when it is answered. */
  private aheadOut = false;
  /** The write ahead is due at the end of this turn of the event loop. */
  private aheadDue: NodeJS.Immediate | null = null;
  private readonly writeAheadNow = () => {
    this.aheadDue = null;
    this.writeAhead();
  };
  private writing: Promise<void> | null = null;
  private registered = false;

  private readonly writeAheadWaitMs: number;

  constructor(options: InFlightJournalOptions) {
    this.options = options;
    this.writeAheadWaitMs = options.writeAheadWaitMs ?? WRITE_AHEAD_WAIT_MS;
    this.meta = { processTag: options.processTag, pid: process.pid, host: hostname() };
  }

  start(): void {
    if (this.timer !== null) return;
    this.timer = setInterval(() => void this.checkpoint(), this.options.checkpointMs);
    this.timer.unref();
    this.options.inFlight.onAdd = (request) => this.admitted(request);
    void this.checkpoint();
  }

  /**
   * A request was admitted: written ahead with the others admitted in this turn (or while the
   * write before is out). The promise settles once Redis has the entry, or could not take it
   * within WRITE_AHEAD_WAIT_MS; the relay calls no upstream before.
   */
  private admitted(request: InFlightRequest): Promise<void> | undefined {
    if (this.timer === null) return undefined;
    this.fresh.push(request);
    this.freshBatch ??= aheadBatch();
    if (!this.aheadOut && this.aheadDue === null) this.aheadDue = setImmediate(this.writeAheadNow);
    return this.freshBatch.written;
  }

  /**
   * The admitted requests still open: one HSET of their entries (the cheapest write Redis has; no
   * script, no heartbeat). One write is out at a time: the requests admitted while it is answered
   * go together in the next. Sent on the checkpoints' connection, so an entry never arrives after
   * its own deletion.
   */
  private writeAhead(): void {
    const fresh = this.fresh;
    const batch = this.freshBatch;
    this.fresh = [];
    this.freshBatch = null;
    if (batch === null) return;
    if (this.timer === null) return batch.settle();
    const { inFlight, redis, prefix } = this.options;
    const now = Date.now();
    const args: string[] = [];
    for (const request of fresh) {
      const { requestId } = request;
      if (this.finishing.has(requestId) || this.written.has(requestId) || inFlight.get(requestId) !== request) continue;
      args.push(requestId, JSON.stringify(this.entry(request, request.progress(), now)));
      // Written, with no usage known: the next checkpoint writes its progress if it is still open.
      this.written.set(requestId, "");
    }
    if (args.length === 0) return batch.settle();
    this.aheadOut = true;
    // The next write goes once this one is answered, or once its requests stopped waiting for it.
    let next = true;
    const goOn = () => {
      batch.settle();
      if (!next) return;
      next = false;
      this.aheadOut = false;
      if (this.fresh.length > 0) this.writeAhead();
    };
    const wait = setTimeout(() => {
      this.options.logger.warn({ requests: args.length / 2, waitMs: this.writeAheadWaitMs }, "in-flight journal write ahead not answered; its requests go on");
      goOn();
    }, this.writeAheadWaitMs);
    wait.unref();
    redis.hset(journalKeys(prefix).process(this.processId), ...args).then(
      () => {
        clearTimeout(wait);
        goOn();
      },
      (error: unknown) => {
        clearTimeout(wait);
        // Not in Redis: the next checkpoint writes every open request that is not.
        for (let index = 0; index < args.length; index += 2) this.written.delete(args[index]!);
        this.options.logger.warn({ err: (error as Error).message, requests: args.length / 2 }, "in-flight journal entries not written ahead; the requests go on unjournaled");
        goOn();
      },
    );
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

  /** Writes one checkpoint now (one at a time: a slow write makes the next tick skip, not pile up). */
  checkpoint(): Promise<void> {
    this.writing ??= this.write().finally(() => (this.writing = null));
    return this.writing;
  }

  private async write(): Promise<void> {
    const { inFlight, redis, prefix } = this.options;
    const now = Date.now();
    const upserts: JournalEntry[] = [];
    const usages: [string, string][] = [];
    for (const request of inFlight.entries()) {
      if (this.finishing.has(request.requestId)) continue;
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
    if (this.aheadDue !== null) clearImmediate(this.aheadDue);
    this.timer = null;
    this.aheadDue = null;
    // Requests waiting for a write go on: the last checkpoint below writes what is still open.
    this.freshBatch?.settle();
    this.fresh = [];
    this.freshBatch = null;
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
