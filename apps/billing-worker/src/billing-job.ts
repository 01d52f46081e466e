import { UnrecoverableError } from "bullmq";
import { BILLING_JOB, billingEventSchema, type BillingEvent } from "@gateway/contracts";
import type { PrismaClient } from "@gateway/db";
import type { Logger } from "@gateway/logger";
import type { PriceLoader } from "./price-loader.ts";
import { priceUsage } from "@gateway/contracts";
import { permanentDatabaseError, recordUsage, type LedgerEntry, type RecordOutcome } from "./record-usage.ts";

/** What a finished single-event job (`usage`) leaves as its return value (JSON, so the cost is a decimal string). */
export interface BillingEventResult {
  requestId: string;
  outcome: RecordOutcome;
  /** nano-USD */
  costNano: string;
  /** False when the server option or the model was unknown and the request was recorded at 0. */
  priced: boolean;
}

/** What a finished batch job (`usage-batch`) leaves as its return value. */
export interface BillingBatchResult {
  events: number;
  recorded: number;
  duplicate: number;
  /** Events recorded at cost 0 because their server option or model was unknown. */
  unpriced: number;
  /** Sum of the recorded events' costs, nano-USD. */
  costNano: string;
  /** Request ids (or `<job id>#<index>` for an event without one) split out into failing jobs of their own. */
  splitOut: string[];
}

export type BillingJobResult = BillingEventResult | BillingBatchResult;

export function isBatchResult(result: BillingJobResult): result is BillingBatchResult {
  return "events" in result;
}

/** An event of a batch that can never be recorded: put into a job of its own, which fails and is kept. */
export interface SplitOutEvent {
  /** The job id to give it: its request id, or `<batch job id>#<index>` when it has none. */
  jobId: string;
  data: unknown;
}

export interface BillingJobDependencies {
  prisma: PrismaClient;
  prices: PriceLoader;
  logger: Logger;
  /**
   * Writes one priced event to the ledger (default: a statement of its own). The queue worker
   * passes its LedgerBatcher, which writes many jobs' events in one statement.
   */
  record?: (event: BillingEvent, costNano: bigint) => Promise<RecordOutcome>;
  /** Writes a batch job's priced events (default: `record` for each); the queue worker passes its LedgerBatcher's, which counts them as one job. */
  recordMany?: (entries: readonly LedgerEntry[]) => Promise<PromiseSettledResult<RecordOutcome>[]>;
  /** Queues a batch's bad events as single jobs (the queue worker adds them to the billing queue). */
  splitOut?: (events: SplitOutEvent[]) => Promise<void>;
}

/** The part of a BullMQ job the handler reads, so tests and tools can call it directly. */
export interface BillingJobLike {
  id?: string | undefined;
  name?: string | undefined;
  data: unknown;
}

class PermanentEventError extends UnrecoverableError {}

/**
 * Handles one billing job, a single event (`usage`) or a batch (`usage-batch`): validate, price,
 * record at most once. Safe to run any number of times for the same events, concurrently or not:
 * only the first run changes the ledger.
 *
 * A single event that no retry can fix (malformed, an api key that does not exist, a count out of
 * the column's range) throws UnrecoverableError, so its job goes straight to failed and stays there
 * to be looked at; anything else (Postgres away) throws as is and BullMQ retries with the
 * producer's backoff. In a batch the good events are recorded and each bad one is split out into a
 * single-event job of its own (which then fails just so); a transient error fails the whole batch
 * job, to be retried, which the ledger makes a no-op for the events that had committed.
 */
export function createBillingJobHandler(dependencies: BillingJobDependencies): (job: BillingJobLike) => Promise<BillingJobResult> {
  const { prisma, prices, logger } = dependencies;
  const record = dependencies.record ?? ((event: BillingEvent, costNano: bigint) => recordUsage(prisma, event, costNano));

  const recordMany = dependencies.recordMany ?? ((entries: readonly LedgerEntry[]) => Promise.allSettled(entries.map(({ event, costNano }) => record(event, costNano))));

  /** Validates and prices one event (a permanent error for one that can never be recorded). */
  const priced = async (data: unknown, jobId: string | undefined): Promise<LedgerEntry & { priced: boolean }> => {
    const event = parseEvent(data, jobId);
    const sheet = await prices.get(event.serverOption, event.model);
    if (!sheet) {
      logger.warn({ requestId: event.requestId, serverOption: event.serverOption, model: event.model }, "unknown server option or model; recording at cost 0");
    }
    return { event, costNano: sheet ? priceUsage(event.usage, sheet) : 0n, priced: sheet !== null };
  };

  /** The outcome of writing one event, or its error (permanent ones as PermanentEventError). */
  const settle = (entry: LedgerEntry, jobId: string | undefined, result: PromiseSettledResult<RecordOutcome>): RecordOutcome => {
    const { event } = entry;
    if (result.status === "rejected") {
      const permanent = permanentDatabaseError(result.reason);
      if (permanent) throw new PermanentEventError(`billing event ${event.requestId} cannot be recorded: ${permanent} (api key '${event.apiKeyId}')`);
      throw result.reason;
    }
    if (result.value === "duplicate") logger.info({ requestId: event.requestId, jobId }, "usage already recorded; no-op");
    return result.value;
  };

  const handleEvent = async (data: unknown, jobId: string | undefined): Promise<BillingEventResult> => {
    const entry = await priced(data, jobId);
    const [result] = await recordMany([entry]);
    const outcome = settle(entry, jobId, result!);
    if (outcome === "recorded") logger.debug({ requestId: entry.event.requestId, costNano: entry.costNano.toString() }, "usage recorded");
    return { requestId: entry.event.requestId, outcome, costNano: entry.costNano.toString(), priced: entry.priced };
  };

  const handleBatch = async (job: BillingJobLike, events: unknown[]): Promise<BillingBatchResult> => {
    const entries = await Promise.allSettled(events.map((data) => priced(data, job.id)));
    // Price lookups that failed on something transient (Postgres away) fail the job, to be retried.
    const unpricable = entries.find((entry) => entry.status === "rejected" && !(entry.reason instanceof PermanentEventError));
    if (unpricable) throw (unpricable as PromiseRejectedResult).reason;
    const valid = entries.flatMap((entry) => (entry.status === "fulfilled" ? [entry.value] : []));
    const written = await recordMany(valid);
    const outcomes: PromiseSettledResult<RecordOutcome>[] = [];
    let next = 0;
    for (const entry of entries) {
      if (entry.status === "rejected") {
        outcomes.push(entry);
        continue;
      }
      const index = next++;
      try {
        outcomes.push({ status: "fulfilled", value: settle(entry.value, job.id, written[index]!) });
      } catch (error) {
        outcomes.push({ status: "rejected", reason: error });
      }
    }
    const transient = outcomes.find((outcome) => outcome.status === "rejected" && !(outcome.reason instanceof PermanentEventError));
    if (transient) throw (transient as PromiseRejectedResult).reason;

    const result: BillingBatchResult = { events: events.length, recorded: 0, duplicate: 0, unpriced: 0, costNano: "0", splitOut: [] };
    const bad: SplitOutEvent[] = [];
    let cost = 0n;
    outcomes.forEach((outcome, index) => {
      if (outcome.status === "rejected") {
        const requestId = (events[index] as { requestId?: unknown } | null)?.requestId;
        const jobId = typeof requestId === "string" && requestId.startsWith("req_") ? requestId : `${job.id ?? "batch"}#${index}`;
        bad.push({ jobId, data: events[index] });
        logger.error({ jobId: job.id, eventJobId: jobId, err: (outcome.reason as Error).message }, "billing event cannot be recorded; split out of its batch into a job of its own");
        return;
      }
      const entry = (entries[index] as PromiseFulfilledResult<LedgerEntry & { priced: boolean }>).value;
      if (outcome.value === "duplicate") result.duplicate += 1;
      else result.recorded += 1;
      if (!entry.priced) result.unpriced += 1;
      cost += entry.costNano;
    });
    if (bad.length > 0) {
      if (!dependencies.splitOut) throw new UnrecoverableError(`batch ${job.id ?? "(no id)"}: ${bad.length} event(s) cannot be recorded (${bad.map((item) => item.jobId).join(", ")})`);
      await dependencies.splitOut(bad);
      result.splitOut = bad.map((item) => item.jobId);
    }
    result.costNano = cost.toString();
    return result;
  };

  return async (job) => {
    if (job.name === BILLING_JOB.batch) {
      const events = (job.data as { events?: unknown } | null)?.events;
      if (!Array.isArray(events)) throw new UnrecoverableError(`batch job ${job.id ?? "(no id)"} holds no events list`);
      return handleBatch(job, events);
    }
    return handleEvent(job.data, job.id);
  };
}

function parseEvent(data: unknown, jobId: string | undefined): BillingEvent {
  const invalid = (problem: string) => new PermanentEventError(`invalid billing event in job ${jobId ?? "(no id)"}: ${problem}`);
  const parsed = billingEventSchema.safeParse(data);
  if (!parsed.success) throw invalid(parsed.error.issues.map((issue) => `${issue.path.join(".") || "(event)"}: ${issue.message}`).join("; "));
  if (!isDate(parsed.data.startedAt) || !isDate(parsed.data.finishedAt)) throw invalid("startedAt or finishedAt is not a date");
  return parsed.data;
}

function isDate(epochMs: number): boolean {
  return !Number.isNaN(new Date(epochMs).getTime());
}
