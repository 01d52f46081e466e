import { attemptSchema, formatUsd } from "@gateway/contracts";
import { Prisma, type PrismaClient, type UsageStatus } from "@gateway/db";
import { z } from "zod";
import { toList, type List } from "../vendors/pagination.ts";
import { positionId, positionInstant, type RequestAttemptObject, type RequestObject } from "../vendors/report-schemas.ts";

/** Where a page of the request log starts: after this request, in (finished_at, id) descending order. */
export const requestPositionSchema = z.object({ finishedAt: positionInstant, id: positionId });
export type RequestPosition = z.output<typeof requestPositionSchema>;

export interface RequestLogFilter {
  vendorId: string;
  id?: string;
  keyId?: string;
  model?: string;
  status?: UsageStatus;
  /** finished_at >= from */
  from?: Date;
  /** finished_at < to */
  to?: Date;
}

export interface LedgerRow {
  request_id: string;
  api_key_id: string;
  model: string;
  endpoint: string;
  stream: boolean;
  status: UsageStatus;
  /** Token counts are BIGINT columns (read as bigint); the JSON shows numbers, exact below 2^53. */
  input_tokens: bigint;
  output_tokens: bigint;
  cached_input_tokens: bigint;
  cache_write_tokens: bigint;
  cache_write_1h_tokens: bigint;
  reasoning_tokens: bigint;
  images: number;
  web_search_requests: bigint;
  cost_nano: bigint;
  estimated: boolean;
  ttfb_ms: number | null;
  started_at: Date;
  finished_at: Date;
  /** JSONB as the billing worker wrote the event's attempts; null for rows without any. */
  attempts: unknown;
}

/**
 * GET /api/requests (contract section 9): the vendor's ledger rows newest first, by the end of
 * each request (the instant /api/usage windows by), ties broken by id. Keyset pagination: the row
 * comparison `(finished_at, request_id) < (...)` starts the range scan at the cursor on whichever
 * index serves the filters (the vendor's ledger index, the key's, or the vendor and model one),
 * so a deep page costs what the first does. The page's ids are picked first and only those rows
 * read: on the vendor's ledger index, which holds status and model too, picking them reads no row
 * at all, so a rare status does not make Postgres read every row it skips.
 */
export async function requestLog(prisma: PrismaClient, filter: RequestLogFilter, limit: number, after: RequestPosition | undefined): Promise<List<RequestObject>> {
  const rows = await prisma.$queryRaw<LedgerRow[]>(requestLogQuery(filter, limit, after));
  return toList(rows, limit, toRequestObject, (row) => ({ finishedAt: row.finished_at.toISOString(), id: row.request_id }));
}

/** The statement of one page, `limit + 1` rows. Exported for EXPLAIN in the benchmark. */
export function requestLogQuery(filter: RequestLogFilter, limit: number, after: RequestPosition | undefined): Prisma.Sql {
  const conditions = [Prisma.sql`vendor_id = ${filter.vendorId}`];
  if (filter.id !== undefined) conditions.push(Prisma.sql`request_id = ${filter.id}`);
  if (filter.keyId !== undefined) conditions.push(Prisma.sql`api_key_id = ${filter.keyId}`);
  if (filter.model !== undefined) conditions.push(Prisma.sql`model = ${filter.model}`);
  if (filter.status !== undefined) conditions.push(Prisma.sql`status = ${filter.status}`);
  if (filter.from !== undefined) conditions.push(Prisma.sql`finished_at >= ${filter.from}::timestamptz`);
  if (filter.to !== undefined) conditions.push(Prisma.sql`finished_at < ${filter.to}::timestamptz`);
  if (after !== undefined) conditions.push(Prisma.sql`(finished_at, request_id) < (${new Date(after.finishedAt)}::timestamptz, ${after.id})`);
  return Prisma.sql`
    SELECT r.request_id, r.api_key_id, r.model, r.endpoint, r.stream, r.status, r.input_tokens, r.output_tokens,
      r.cached_input_tokens, r.cache_write_tokens, r.cache_write_1h_tokens, r.reasoning_tokens, r.images, r.web_search_requests,
      r.cost_nano, r.estimated, r.ttfb_ms,
      r.started_at, r.finished_at, r.attempts
    FROM (
      SELECT request_id FROM usage_records
      WHERE ${Prisma.join(conditions, " AND ")}
      ORDER BY finished_at DESC, request_id DESC
      LIMIT ${limit + 1}
    ) AS page
    JOIN usage_records AS r USING (request_id)
    ORDER BY r.finished_at DESC, r.request_id DESC`;
}

export function toRequestObject(row: LedgerRow): RequestObject {
  return {
    id: row.request_id,
    object: "request",
    key_id: row.api_key_id,
    model: row.model,
    endpoint: row.endpoint,
    stream: row.stream,
    status: row.status,
    input_tokens: Number(row.input_tokens),
    output_tokens: Number(row.output_tokens),
    cached_input_tokens: Number(row.cached_input_tokens),
    cache_write_tokens: Number(row.cache_write_tokens),
    cache_write_1h_tokens: Number(row.cache_write_1h_tokens),
    reasoning_tokens: Number(row.reasoning_tokens),
    images: row.images,
    web_search_requests: Number(row.web_search_requests),
    cost: formatUsd(row.cost_nano),
    cost_nano: row.cost_nano.toString(),
    estimated: row.estimated,
    ttfb_ms: row.ttfb_ms,
    duration_ms: row.finished_at.getTime() - row.started_at.getTime(),
    created_at: row.started_at.toISOString(),
    finished_at: row.finished_at.toISOString(),
    attempts: toAttempts(row.attempts),
  };
}

/** The stored attempts in the API's snake_case; anything the contract's schema does not take shows as none. */
const storedAttemptsSchema = attemptSchema.array();

function toAttempts(stored: unknown): RequestAttemptObject[] {
  const parsed = storedAttemptsSchema.safeParse(stored ?? []);
  if (!parsed.success) return [];
  return parsed.data.map((attempt) => ({
    upstream: attempt.upstream,
    upstream_model: attempt.upstreamModel,
    cause: attempt.cause,
    status: attempt.status,
    duration_ms: attempt.durationMs,
    ttfb_ms: attempt.ttfbMs,
  }));
}
