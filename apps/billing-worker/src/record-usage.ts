import type { BillingEvent } from "@gateway/contracts";
import type { PrismaClient } from "@gateway/db";

export type RecordOutcome = "recorded" | "duplicate";

/** "2026-11-22" for the UTC day of an epoch-millisecond timestamp. */
export function utcDay(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 10);
}

/**
 * Writes one request to the ledger, at most once, in one statement (so one transaction):
 *
 * 1. the usage record is inserted under its request id, or nothing happens if it is already there
 *    (a duplicated event, or a job retried after a crash between the commit and the ack);
 * 2. only the row that was actually inserted feeds the per-day aggregate of (key, model, UTC day
 *    of finishedAt), incremented in place, so concurrent jobs never lose an update.
 *
 * Two jobs racing on the same request id serialize on the primary key: the second waits for the
 * first to commit, then inserts nothing and adds nothing. Each statement locks one aggregate row,
 * so concurrent jobs cannot deadlock.
 */
export async function recordUsage(prisma: PrismaClient, event: BillingEvent, costNano: bigint): Promise<RecordOutcome> {
  const usage = event.usage;
  const rows = await prisma.$queryRaw<{ recorded: number }[]>`
    WITH inserted AS (
      INSERT INTO usage_records (
        request_id, api_key_id, vendor_id, model, upstream, upstream_model, endpoint, status, estimated,
        input_tokens, output_tokens, cached_input_tokens, cache_write_tokens, reasoning_tokens, images,
        cost_nano, started_at, finished_at, ttfb_ms
      ) VALUES (
        ${event.requestId}, ${event.apiKeyId}, ${event.vendorId}, ${event.model}, ${event.upstream}, ${event.upstreamModel},
        ${event.endpoint}, ${event.status}, ${event.estimated},
        ${usage.inputTokens}::int, ${usage.outputTokens}::int, ${usage.cachedInputTokens}::int,
        ${usage.cacheWriteTokens}::int, ${usage.reasoningTokens}::int, ${usage.images}::int,
        ${costNano}::bigint, ${new Date(event.startedAt)}::timestamptz, ${new Date(event.finishedAt)}::timestamptz, ${event.ttfbMs}::int
      )
      ON CONFLICT (request_id) DO NOTHING
      RETURNING api_key_id, model, input_tokens, output_tokens, cached_input_tokens, cache_write_tokens, reasoning_tokens, images, cost_nano
    )
    INSERT INTO usage_aggregates AS aggregate (
      api_key_id, model, day, requests, input_tokens, output_tokens, cached_input_tokens, cache_write_tokens, reasoning_tokens,
      images, cost_nano, updated_at
    )
    SELECT api_key_id, model, ${utcDay(event.finishedAt)}::date, 1, input_tokens, output_tokens, cached_input_tokens, cache_write_tokens,
      reasoning_tokens, images, cost_nano, now()
    FROM inserted
    ON CONFLICT (api_key_id, model, day) DO UPDATE SET
      requests = aggregate.requests + EXCLUDED.requests,
      input_tokens = aggregate.input_tokens + EXCLUDED.input_tokens,
      output_tokens = aggregate.output_tokens + EXCLUDED.output_tokens,
      cached_input_tokens = aggregate.cached_input_tokens + EXCLUDED.cached_input_tokens,
      cache_write_tokens = aggregate.cache_write_tokens + EXCLUDED.cache_write_tokens,
      reasoning_tokens = aggregate.reasoning_tokens + EXCLUDED.reasoning_tokens,
      images = aggregate.images + EXCLUDED.images,
      cost_nano = aggregate.cost_nano + EXCLUDED.cost_nano,
      updated_at = EXCLUDED.updated_at
    RETURNING 1 AS recorded`;
  return rows.length > 0 ? "recorded" : "duplicate";
}
