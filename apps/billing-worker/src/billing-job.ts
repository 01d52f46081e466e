import { UnrecoverableError } from "bullmq";
import { billingEventSchema, type BillingEvent } from "@gateway/contracts";
import type { PrismaClient } from "@gateway/db";
import type { Logger } from "@gateway/logger";
import type { PriceLoader } from "./price-loader.ts";
import { priceUsage } from "@gateway/contracts";
import { permanentDatabaseError, recordUsage, type RecordOutcome } from "./record-usage.ts";

/** What a finished job leaves as its return value (JSON, so the cost is a decimal string). */
export interface BillingJobResult {
  requestId: string;
  outcome: RecordOutcome;
  /** nano-USD */
  costNano: string;
  /** False when the server option or the model was unknown and the request was recorded at 0. */
  priced: boolean;
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
}

/** The part of a BullMQ job the handler reads, so tests and tools can call it directly. */
export interface BillingJobLike {
  id?: string | undefined;
  data: unknown;
}

/**
 * Handles one billing job: validate, price, record at most once. Safe to run any number of times
 * for the same event, concurrently or not: only the first run changes the ledger.
 *
 * Errors that no retry can fix (a malformed event, an api key that does not exist, a count out of
 * the column's range) throw UnrecoverableError, so the job goes straight to failed and stays there
 * to be looked at; anything else (Postgres away) throws as is and BullMQ retries with the
 * producer's backoff.
 */
export function createBillingJobHandler(dependencies: BillingJobDependencies): (job: BillingJobLike) => Promise<BillingJobResult> {
  const { prisma, prices, logger } = dependencies;
  const record = dependencies.record ?? ((event: BillingEvent, costNano: bigint) => recordUsage(prisma, event, costNano));
  return async (job) => {
    const event = parseEvent(job);
    const sheet = await prices.get(event.serverOption, event.model);
    if (!sheet) {
      logger.warn({ requestId: event.requestId, serverOption: event.serverOption, model: event.model }, "unknown server option or model; recording at cost 0");
    }
    const costNano = sheet ? priceUsage(event.usage, sheet) : 0n;
    let outcome: RecordOutcome;
    try {
      outcome = await record(event, costNano);
    } catch (error) {
      const permanent = permanentDatabaseError(error);
      if (permanent) throw new UnrecoverableError(`billing event ${event.requestId} cannot be recorded: ${permanent} (api key '${event.apiKeyId}')`);
      throw error;
    }
    if (outcome === "duplicate") logger.info({ requestId: event.requestId, jobId: job.id }, "usage already recorded; job is a no-op");
    else logger.debug({ requestId: event.requestId, costNano: costNano.toString() }, "usage recorded");
    return { requestId: event.requestId, outcome, costNano: costNano.toString(), priced: sheet !== null };
  };
}

function parseEvent(job: BillingJobLike): BillingEvent {
  const invalid = (problem: string) => new UnrecoverableError(`invalid billing event in job ${job.id ?? "(no id)"}: ${problem}`);
  const parsed = billingEventSchema.safeParse(job.data);
  if (!parsed.success) throw invalid(parsed.error.issues.map((issue) => `${issue.path.join(".") || "(event)"}: ${issue.message}`).join("; "));
  if (!isDate(parsed.data.startedAt) || !isDate(parsed.data.finishedAt)) throw invalid("startedAt or finishedAt is not a date");
  return parsed.data;
}

function isDate(epochMs: number): boolean {
  return !Number.isNaN(new Date(epochMs).getTime());
}
