import type { BillingEvent } from "@gateway/contracts";
import { Prisma, type PrismaClient } from "@gateway/db";

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

/**
 * Writes one request to the ledger, at most once, in one statement (so one transaction):
 *
 * 1. the usage record is inserted under its request id, or nothing happens if it is already there
 *    (a duplicated event, or a job retried after a crash between the commit and the ack);
 * 2. only the row that was actually inserted feeds the per-day totals of its UTC day of
 *    finishedAt, incremented in place, so concurrent jobs never lose an update: usage_aggregates
 *    (key, model), usage_key_days (key) and usage_vendor_days (vendor, model, the key's server
 *    option, one of 16 stripes chosen by the request id). The last two serve the vendor's
 *    GET /api/usage; a vendor's busiest model would make one row hot without the stripes.
 *
 * Two jobs racing on the same request id serialize on the primary key: the second waits for the
 * first to commit, then inserts nothing and adds nothing. Each statement locks one row of each
 * per-day table, always in the same order, so concurrent jobs cannot deadlock.
 */
export async function recordUsage(prisma: PrismaClient, event: BillingEvent, costNano: bigint): Promise<RecordOutcome> {
  const usage = event.usage;
  const day = utcDay(event.finishedAt);
  const rows = await prisma.$queryRaw<{ recorded: number }[]>`
    WITH inserted AS (
      INSERT INTO usage_records (
        request_id, api_key_id, vendor_id, model, upstream, upstream_model, endpoint, status, stream, estimated,
        input_tokens, output_tokens, cached_input_tokens, cache_write_tokens, reasoning_tokens, images,
        cache_write_1h_tokens, web_search_requests, cost_nano, started_at, finished_at, ttfb_ms
      ) VALUES (
        ${event.requestId}, ${event.apiKeyId}, ${event.vendorId}, ${event.model}, ${event.upstream}, ${event.upstreamModel},
        ${event.endpoint}, ${event.status}, ${event.stream ?? false}, ${event.estimated},
        ${usage.inputTokens}::int, ${usage.outputTokens}::int, ${usage.cachedInputTokens}::int,
        ${usage.cacheWriteTokens}::int, ${usage.reasoningTokens}::int, ${usage.images}::int,
        ${usage.cacheWrite1hTokens ?? 0}::int, ${usage.webSearchRequests ?? 0}::int,
        ${costNano}::bigint, ${new Date(event.startedAt)}::timestamptz, ${new Date(event.finishedAt)}::timestamptz, ${event.ttfbMs}::int
      )
      ON CONFLICT (request_id) DO NOTHING
      RETURNING request_id, api_key_id, vendor_id, model, input_tokens, output_tokens, cached_input_tokens, cache_write_tokens,
        reasoning_tokens, images, cache_write_1h_tokens, web_search_requests, cost_nano
    ),
    key_day AS (
      INSERT INTO usage_key_days AS total (
        api_key_id, day, vendor_id, requests, input_tokens, output_tokens, cached_input_tokens, cache_write_tokens, reasoning_tokens,
        images, cache_write_1h_tokens, web_search_requests, cost_nano, updated_at
      )
      SELECT api_key_id, ${day}::date, vendor_id, 1, input_tokens, output_tokens, cached_input_tokens, cache_write_tokens,
        reasoning_tokens, images, cache_write_1h_tokens, web_search_requests, cost_nano, now()
      FROM inserted
      ON CONFLICT (api_key_id, day) DO UPDATE SET ${Prisma.raw(ADD_SUMS)}
    ),
    vendor_day AS (
      INSERT INTO usage_vendor_days AS total (
        vendor_id, day, model, server_option_id, shard, requests, input_tokens, output_tokens, cached_input_tokens, cache_write_tokens,
        reasoning_tokens, images, cache_write_1h_tokens, web_search_requests, cost_nano, updated_at
      )
      SELECT inserted.vendor_id, ${day}::date, inserted.model, key.server_option_id, hashtext(inserted.request_id) & ${VENDOR_DAY_SHARDS - 1},
        1, input_tokens, output_tokens, cached_input_tokens, cache_write_tokens, reasoning_tokens, images, cache_write_1h_tokens,
        web_search_requests, cost_nano, now()
      FROM inserted JOIN api_keys AS key ON key.id = inserted.api_key_id
      ON CONFLICT (vendor_id, day, model, server_option_id, shard) DO UPDATE SET ${Prisma.raw(ADD_SUMS)}
    )
    INSERT INTO usage_aggregates AS total (
      api_key_id, model, day, requests, input_tokens, output_tokens, cached_input_tokens, cache_write_tokens, reasoning_tokens,
      images, cache_write_1h_tokens, web_search_requests, cost_nano, updated_at
    )
    SELECT api_key_id, model, ${day}::date, 1, input_tokens, output_tokens, cached_input_tokens, cache_write_tokens,
      reasoning_tokens, images, cache_write_1h_tokens, web_search_requests, cost_nano, now()
    FROM inserted
    ON CONFLICT (api_key_id, model, day) DO UPDATE SET ${Prisma.raw(ADD_SUMS)}
    RETURNING 1 AS recorded`;
  return rows.length > 0 ? "recorded" : "duplicate";
}
