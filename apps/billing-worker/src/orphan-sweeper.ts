import type { Queue } from "bullmq";
import { BILLING_JOB, BILLING_JOB_OPTIONS, priceUsage, type BillingBatch, type BillingEvent } from "@gateway/contracts";
import type { Logger } from "@gateway/logger";
import {
  claimDeadJournals,
  dropProcessLeases,
  finishClaim,
  readClaimedJournal,
  releaseOrphanReservation,
  takeClaimedEntry,
  type JournalEntry,
  type RedisClient,
} from "@gateway/redis-store";
import type { PriceLoader } from "./price-loader.ts";

/** Most events in one job, as the proxy's batches. */
const EVENTS_PER_JOB = 500;

export interface OrphanSweeperOptions {
  redis: RedisClient;
  prefix: string;
  /** The billing queue: interrupted requests are billed through the same jobs and ledger as every other. */
  queue: Queue;
  prices: PriceLoader;
  logger: Logger;
  /** How often dead processes' journals are looked for. */
  intervalMs: number;
  /** How long a claim on a journal lasts before another sweeper may take it over (this one died mid-sweep). */
  claimMs: number;
}

/**
 * Bills the requests of proxy processes that died (contract section 14, "A process that dies"). Every
 * `intervalMs` it claims the in-flight journals whose heartbeat ran out (atomically: any number of
 * workers may run one) and, for each entry:
 *
 * 1. queues one billing event, status `interrupted`, `estimated: true`, usage = its last checkpoint,
 *    its request id the proxy's: a request the proxy did bill before dying keeps its first row (the
 *    ledger is idempotent on the request id) and a re-sweep queues nothing new;
 * 2. then gives back what it held of its key's limits and books what it is billed
 *    (`releaseOrphanReservation`, once per request whoever calls it), and drops the dead process's
 *    leases and in-flight tokens on its keys (`dropProcessLeases`);
 * 3. then deletes the journal.
 *
 * Runs in the billing worker, which already holds Redis, the billing queue and the prices (the
 * limits are settled at the same cost the ledger will record).
 */
export class OrphanSweeper {
  private readonly options: OrphanSweeperOptions;
  private timer: NodeJS.Timeout | null = null;
  private sweeping: Promise<number> | null = null;
  private readonly listeners: ((requests: number) => void)[] = [];

  constructor(options: OrphanSweeperOptions) {
    this.options = options;
  }

  start(): void {
    if (this.timer !== null) return;
    this.timer = setInterval(() => void this.sweep().catch((error: unknown) => this.options.logger.warn({ err: (error as Error).message }, "orphan sweep failed; next round retries")), this.options.intervalMs);
    this.timer.unref();
  }

  /** Called once per dead process swept, with the number of its requests billed `interrupted` (the worker's metrics). */
  onSwept(listener: (requests: number) => void): void {
    this.listeners.push(listener);
  }

  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.sweeping?.catch(() => undefined);
  }

  /** One round (one at a time); resolves to the number of requests billed `interrupted`. */
  sweep(): Promise<number> {
    this.sweeping ??= this.round().finally(() => (this.sweeping = null));
    return this.sweeping;
  }

  private async round(): Promise<number> {
    const { redis, prefix, claimMs } = this.options;
    let billed = 0;
    for (const processId of await claimDeadJournals(redis, prefix, claimMs)) billed += await this.sweepProcess(processId);
    return billed;
  }

  private async sweepProcess(processId: string): Promise<number> {
    const { redis, prefix, queue, logger } = this.options;
    const { meta, entries, malformed } = await readClaimedJournal(redis, prefix, processId);
    if (malformed.length > 0) logger.error({ processId, fields: malformed }, "in-flight journal fields not readable; left out");
    const events = entries.map(interruptedEvent);
    for (let start = 0; start < events.length; start += EVENTS_PER_JOB) {
      const chunk = events.slice(start, start + EVENTS_PER_JOB);
      const data: BillingBatch = { events: chunk };
      // Its own job ids (never a proxy batch's `batch:<first>:<count>`; BullMQ takes no other ':'),
      // the same again when a sweeper that took over an abandoned claim re-sends it.
      await queue.add(BILLING_JOB.batch, data, { ...BILLING_JOB_OPTIONS, jobId: `interrupted-${processId}-${chunk[0]!.requestId}-${chunk.length}` });
    }
    for (const entry of entries) {
      // Whoever takes the entry out settles it; a sweeper that took over an abandoned claim skips what the first one did.
      if (!(await takeClaimedEntry(redis, prefix, processId, entry.requestId)) || entry.reservation === null) continue;
      const sheet = await this.options.prices.get(entry.serverOption, entry.model);
      const costNano = sheet ? priceUsage(entry.usage, sheet) : 0n;
      await releaseOrphanReservation(redis, prefix, entry.reservation, costNano, entry.usage.inputTokens + entry.usage.outputTokens);
    }
    if (meta !== null) {
      // A customer's key keeps its counters in its customer's slot (redisKeys.limits).
      const keyIds = new Map(entries.map((entry) => [entry.reservation?.keyId ?? entry.apiKeyId, entry.reservation?.customerId ?? null] as const));
      for (const [keyId, customerId] of keyIds) await dropProcessLeases(redis, prefix, keyId, meta.processTag, customerId);
    }
    await finishClaim(redis, prefix, processId);
    logger.warn({ processId, requests: events.length, host: meta?.host, pid: meta?.pid }, "billed the open requests of a dead proxy process as interrupted");
    for (const listener of this.listeners) listener(events.length);
    return events.length;
  }
}

/** The billing event of a journal entry: what was relayed up to its last checkpoint, estimated. */
export function interruptedEvent(entry: JournalEntry): BillingEvent {
  return {
    requestId: entry.requestId,
    apiKeyId: entry.apiKeyId,
    vendorId: entry.vendorId,
    serverOption: entry.serverOption,
    model: entry.model,
    endpoint: entry.endpoint,
    stream: entry.stream ?? false,
    upstream: entry.upstream,
    upstreamModel: entry.upstreamModel,
    status: "interrupted",
    estimated: true,
    usage: entry.usage,
    startedAt: entry.startedAt,
    finishedAt: Math.max(entry.startedAt, entry.checkpointAt),
    ttfbMs: null,
  };
}
