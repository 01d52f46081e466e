import type { BillingEvent } from "@gateway/contracts";
import type { Db, PrismaClient } from "@gateway/db";

export type RecordOutcome = "recorded" | "duplicate";

/** "2026-11-22" for the UTC day of an epoch-millisecond timestamp. */
export function utcDay(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 10);
}

/** Stripes of a vendor's day and model in usage_vendor_days (a power of two: `hashtext(id) & 15`). */
export const VENDOR_DAY_SHARDS = 16;

/** The sum columns every per-day table keeps, incremented in place on conflict. */
const ADD_SUMS = `requests = total.requests + EXCLUDED.requests,
      input_tokens = total.input_tokens + EXCLUDED.input_tokens,
      output_tokens = total.output_tokens + EXCLUDED.output_tokens,
      cached_input_tokens = total.cached_input_tokens + EXCLUDED.cached_input_tokens,
      cache_write_tokens = total.cache_write_tokens + EXCLUDED.cache_write_tokens,
      cache_write_1h_tokens = total.cache_write_1h_tokens + EXCLUDED.cache_write_1h_tokens,
      web_search_requests = total.web_search_requests + EXCLUDED.web_search_requests,
      reasoning_tokens = total.reasoning_tokens + EXCLUDED.reasoning_tokens,
      images = total.images + EXCLUDED.images,
      cost_nano = total.cost_nano + EXCLUDED.cost_nano,
      updated_at = EXCLUDED.updated_at`;

/** The per-day tables' sum columns; SUM_VALUES gives requests, these, then updated_at, from the rows inserted. */
const SUM_COLUMNS = `input_tokens, output_tokens, cached_input_tokens, cache_write_tokens, reasoning_tokens, images,
      cache_write_1h_tokens, web_search_requests, cost_nano`;
const SUM_VALUES = `count(*), sum(input_tokens), sum(output_tokens), sum(cached_input_tokens), sum(cache_write_tokens),
      sum(reasoning_tokens), sum(images), sum(cache_write_1h_tokens), sum(web_search_requests), sum(cost_nano), now()`;

/** One priced event to write. */
export interface LedgerEntry {
  event: BillingEvent;
  /** nano-USD */
  costNano: bigint;
}

/** What runs the batch's statement: the pool's `query` of a Db (the worker), or a Prisma client. */
export type LedgerConnection = PrismaClient | Pick<Db, "query">;

/** One request to the ledger, at most once: `recordUsageBatch` of one. */
export async function recordUsage(connection: LedgerConnection, event: BillingEvent, costNano: bigint): Promise<RecordOutcome> {
  const [outcome] = await recordUsageBatch(connection, [{ event, costNano }]);
  return outcome!;
}

/**
 * Writes a batch of requests to the ledger, each at most once, in one statement (so one
 * transaction), and returns each entry's outcome in order:
 *
 * 1. the usage records are inserted under their request ids (one multi-row INSERT from a JSON
 *    parameter); a request id already in the ledger (a duplicated event, or a job retried after a
 *    crash between the commit and the ack) inserts nothing. Within the batch the first entry of a
 *    request id wins and the others are duplicates;
 * 2. only the rows actually inserted feed the per-day totals of their UTC day of finishedAt,
 *    summed per row of each table in SQL and incremented in place, so concurrent batches never lose
 *    an update: usage_aggregates (key, model), usage_key_days (key) and usage_vendor_days (vendor,
 *    model, the key's server option, one of 16 stripes chosen by the request id). The last two
 *    serve the vendor's GET /api/usage; a vendor's busiest model would make one row hot without
 *    the stripes.
 *
 * Two batches racing on a request id serialize on the primary key: the second waits for the
 * first to commit, then inserts nothing and adds nothing. Every statement takes its row locks in
 * the same order (records by request id, then each per-day table by its key), so concurrent
 * batches cannot deadlock.
 *
 * A permanent error of one entry (see `permanentDatabaseError`) fails the whole statement; the
 * caller writes the entries one by one to find it.
 */
export async function recordUsageBatch(connection: LedgerConnection, entries: readonly LedgerEntry[]): Promise<RecordOutcome[]> {
  const firsts = new Map<string, LedgerEntry>();
  for (const entry of entries) if (!firsts.has(entry.event.requestId)) firsts.set(entry.event.requestId, entry);
  const rows = JSON.stringify(Array.from(firsts.values(), ledgerRow));
  const inserted = "$queryRawUnsafe" in connection
    ? await connection.$queryRawUnsafe<{ request_id: string }[]>(RECORD_BATCH, rows)
    : await connection.query<{ request_id: string }>(RECORD_BATCH, [rows], { name: "record_usage_batch" });
  const recorded = new Set(inserted.map((row) => row.request_id));
  return entries.map((entry) => (firsts.get(entry.event.requestId) === entry && recorded.has(entry.event.requestId) ? "recorded" : "duplicate"));
}

/** The statement of `recordUsageBatch`; $1 is the JSON array of `ledgerRow`s. */
const RECORD_BATCH = `
  WITH batch AS (
    SELECT * FROM json_to_recordset($1::json) AS row (
      request_id text, api_key_id text, vendor_id text, model text, upstream text, upstream_model text, endpoint text,
      status text, stream boolean, estimated boolean, input_tokens bigint, output_tokens bigint, cached_input_tokens bigint,
      cache_write_tokens bigint, reasoning_tokens bigint, images int, cache_write_1h_tokens bigint, web_search_requests bigint,
      cost_nano bigint, started_at timestamptz, finished_at timestamptz, ttfb_ms int, attempts jsonb
    )
  ),
  inserted AS (
    INSERT INTO usage_records (
      request_id, api_key_id, vendor_id, model, upstream, upstream_model, endpoint, status, stream, estimated,
      input_tokens, output_tokens, cached_input_tokens, cache_write_tokens, reasoning_tokens, images,
      cache_write_1h_tokens, web_search_requests, cost_nano, started_at, finished_at, ttfb_ms, attempts
    )
    SELECT request_id, api_key_id, vendor_id, model, upstream, upstream_model, endpoint, status, stream, estimated,
      input_tokens, output_tokens, cached_input_tokens, cache_write_tokens, reasoning_tokens, images,
      cache_write_1h_tokens, web_search_requests, cost_nano, started_at, finished_at, ttfb_ms, attempts
    FROM batch ORDER BY request_id
    ON CONFLICT (request_id) DO NOTHING
    RETURNING request_id, api_key_id, vendor_id, model, (finished_at AT TIME ZONE 'UTC')::date AS day,
      input_tokens, output_tokens, cached_input_tokens, cache_write_tokens, reasoning_tokens, images,
      cache_write_1h_tokens, web_search_requests, cost_nano
  ),
  key_day AS (
    INSERT INTO usage_key_days AS total (api_key_id, day, vendor_id, requests, ${SUM_COLUMNS}, updated_at)
    SELECT api_key_id, day, min(vendor_id), ${SUM_VALUES}
    FROM inserted GROUP BY api_key_id, day ORDER BY api_key_id, day
    ON CONFLICT (api_key_id, day) DO UPDATE SET ${ADD_SUMS}
  ),
  vendor_day AS (
    INSERT INTO usage_vendor_days AS total (vendor_id, day, model, server_option_id, shard, requests, ${SUM_COLUMNS}, updated_at)
    SELECT inserted.vendor_id, inserted.day, inserted.model, key.server_option_id, hashtext(inserted.request_id) & ${VENDOR_DAY_SHARDS - 1},
      ${SUM_VALUES}
    FROM inserted JOIN api_keys AS key ON key.id = inserted.api_key_id
    GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (vendor_id, day, model, server_option_id, shard) DO UPDATE SET ${ADD_SUMS}
  ),
  aggregate AS (
    INSERT INTO usage_aggregates AS total (api_key_id, model, day, requests, ${SUM_COLUMNS}, updated_at)
    SELECT api_key_id, model, day, ${SUM_VALUES}
    FROM inserted GROUP BY api_key_id, model, day ORDER BY api_key_id, model, day
    ON CONFLICT (api_key_id, model, day) DO UPDATE SET ${ADD_SUMS}
  )
  SELECT request_id FROM inserted`;

/**
 * An entry as a row of the batch's JSON parameter, under usage_records' column names. Token counts
 * stay JSON numbers: the event's schema keeps them safe integers (below 2^53), which print with
 * every digit, and the statement reads them as BIGINT.
 */
function ledgerRow({ event, costNano }: LedgerEntry) {
  const usage = event.usage;
  return {
    request_id: event.requestId,
    api_key_id: event.apiKeyId,
    vendor_id: event.vendorId,
    model: event.model,
    upstream: event.upstream,
    upstream_model: event.upstreamModel,
    endpoint: event.endpoint,
    status: event.status,
    stream: event.stream ?? false,
    estimated: event.estimated,
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
    cached_input_tokens: usage.cachedInputTokens,
    cache_write_tokens: usage.cacheWriteTokens,
    reasoning_tokens: usage.reasoningTokens,
    images: usage.images,
    cache_write_1h_tokens: usage.cacheWrite1hTokens ?? 0,
    web_search_requests: usage.webSearchRequests ?? 0,
    // A string keeps every digit of a bigint; Postgres reads it as one.
    cost_nano: costNano.toString(),
    started_at: new Date(event.startedAt).toISOString(),
    finished_at: new Date(event.finishedAt).toISOString(),
    ttfb_ms: event.ttfbMs,
    // Nested in the batch's one JSON parameter (no statement or parameter more per row); an event
    // without attempts (a proxy that predates them, the orphan sweeper's) leaves the column NULL.
    attempts: event.attempts?.length ? event.attempts : null,
  };
}

/** Postgres errors that the same event will hit on every retry, by SQLSTATE. */
const PERMANENT_CODES: Record<string, string> = {
  "23503": "its api key does not exist",
  "22003": "a number is out of range",
  "22008": "a timestamp is out of range",
};

/**
 * The reason if `error` is one of PERMANENT_CODES. pg's DatabaseError carries the SQLSTATE as
 * `code`; Prisma wraps raw-query errors as P2010 and keeps it in
 * `meta.driverAdapterError.cause.originalCode`.
 */
export function permanentDatabaseError(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const { meta, code } = error as { meta?: { driverAdapterError?: { cause?: { originalCode?: unknown } } }; code?: unknown };
  const sqlState = meta?.driverAdapterError?.cause?.originalCode ?? code;
  return typeof sqlState === "string" ? PERMANENT_CODES[sqlState] : undefined;
}
