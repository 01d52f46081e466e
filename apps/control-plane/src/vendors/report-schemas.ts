import { ATTEMPT_CAUSES } from "@gateway/contracts";
import { USAGE_STATUSES } from "@gateway/db";
import { z } from "zod";
import { listOf, pageQuerySchema } from "./api-schemas.ts";
import { VENDOR_SCOPES } from "./vendor-tokens.ts";

/**
 * Queries and responses of the vendor's reports (contract section 9): GET /api/usage,
 * GET /api/requests and GET /api/audit-log; and GET /api/token, the caller itself. Routes validate with these schemas and the OpenAPI
 * document can be generated from them, like api-schemas.ts.
 */
const isoDateTime = z.iso.datetime({ offset: true });
const isoDate = z.iso.date();

/** C0 controls (NUL above all) cannot reach a Postgres text parameter; such a filter is a 400. */
const CONTROL_CHARACTERS = /[\u0000-\u001f]/;
const filterText = z
  .string()
  .min(1)
  .max(200)
  .refine((value) => !CONTROL_CHARACTERS.test(value), "must not contain control characters");

/**
 * The instant a `from`/`to` names. The ledger keeps milliseconds, so digits beyond them round up:
 * `finished_at >= from` and `finished_at < to` then select exactly what the caller's instant does.
 */
export function toInstant(text: string): Date {
  const milliseconds = Date.parse(text.length === 10 ? `${text}T00:00:00Z` : text);
  const fraction = /\.(\d+)/.exec(text)?.[1] ?? "";
  return new Date(/[1-9]/.test(fraction.slice(3)) ? milliseconds + 1 : milliseconds);
}

/** A date-time with an offset, or a date meaning its UTC midnight; years 0001 to 9999. */
const instant = z
  .string()
  .max(64)
  .refine(
    (value) => (isoDateTime.safeParse(value).success || isoDate.safeParse(value).success) && !value.startsWith("0000"),
    "an ISO 8601 date-time with an offset (2026-11-23T00:00:00Z) or a UTC date (2026-11-23)",
  )
  .transform(toInstant);

/**
 * A keyset cursor's position, decoded from client input: an instant Postgres can hold (year 0000
 * is none) and an id it can take as a parameter (no NUL). Anything else is a 400 naming `cursor`.
 */
export const positionInstant = isoDateTime.refine((value) => !value.startsWith("0000"));
export const positionId = filterText;

// ---------------------------------------------------------------- queries

export const USAGE_GROUPS = ["day", "model", "key", "server_option", "customer"] as const;
export type UsageGroup = (typeof USAGE_GROUPS)[number];

export const usageReportQuerySchema = z.object({
  from: instant.optional().describe("Start of the window (inclusive, by the end of each request); default 30 days before `to`."),
  to: instant.optional().describe("End of the window (exclusive); default now."),
  group_by: z.enum(USAGE_GROUPS).default("day").describe("One row per UTC day, public model name, key id, server option name or customer id (`none` for keys without a customer)."),
});

export const requestLogQuerySchema = pageQuerySchema.extend({
  id: filterText.optional().describe("One request by its id (the x-request-id the client saw)."),
  key_id: filterText.optional().describe("Only this key's requests."),
  model: filterText.optional().describe("Only requests for this public model name."),
  status: z.enum(USAGE_STATUSES).optional().describe("Only requests that ended this way."),
  from: instant.optional().describe("Requests that finished at or after this instant."),
  to: instant.optional().describe("Requests that finished before this instant."),
});

export const auditLogQuerySchema = pageQuerySchema;

// ---------------------------------------------------------------- responses

const count = z.number().int().nonnegative();
const usageFigures = z.object({
  requests: count,
  input_tokens: count,
  output_tokens: count,
  cached_input_tokens: count.describe("Part of input_tokens read from the provider's cache."),
  cache_write_tokens: count.describe("Part of input_tokens written to the provider's cache (5-minute and 1-hour writes)."),
  cache_write_1h_tokens: count.describe("Part of cache_write_tokens written for one hour."),
  reasoning_tokens: count.describe("Part of output_tokens spent on reasoning."),
  images: count,
  web_search_requests: count.describe("Server-side web searches."),
  cost: z.string().describe("USD, 6 decimals, rounded once from cost_nano."),
  cost_nano: z.string().regex(/^\d+$/).describe("The exact cost in nano-USD (an integer as a string): rows and requests add up to the totals to the nano."),
});
export type UsageFigures = z.output<typeof usageFigures>;

export const usageReportRowSchema = usageFigures.extend({
  group: z.string().describe("The UTC day (2026-11-23), model, key id, server option name or customer id (`none`: keys without a customer)."),
  name: z.string().optional().describe("group_by=key: the key's name."),
  prefix: z.string().optional().describe("group_by=key: the key's display prefix."),
});
export type UsageReportRow = z.output<typeof usageReportRowSchema>;

export const usageReportSchema = z.object({
  object: z.literal("usage_report"),
  from: isoDateTime,
  to: isoDateTime,
  group_by: z.enum(USAGE_GROUPS),
  totals: usageFigures,
  data: z.array(usageReportRowSchema).describe("Groups with at least one request, by `group` ascending."),
});
export type UsageReport = z.output<typeof usageReportSchema>;

export const requestAttemptSchema = z.object({
  upstream: z.string().describe("The upstream's name in the gateway file."),
  upstream_model: z.string().nullable().describe("The model name the upstream was asked for."),
  cause: z.enum(ATTEMPT_CAUSES).describe("`ok`, or why the attempt failed (and the gateway tried the next target)."),
  status: z.number().int().nullable().describe("The upstream's HTTP status; null when none came (connect error, timeout before headers)."),
  duration_ms: z.number().int().nonnegative().describe("From the attempt's start to its last byte or its failure."),
  ttfb_ms: z.number().int().nonnegative().nullable().describe("Time to the answer's first byte (streams: the first event); null when none came."),
});
export type RequestAttemptObject = z.output<typeof requestAttemptSchema>;

export const requestSchema = z.object({
  id: z.string().describe("req_..., the x-request-id the client saw."),
  object: z.literal("request"),
  key_id: z.string(),
  model: z.string(),
  endpoint: z.string().describe("chat.completions, messages, responses, images.generations, embeddings"),
  stream: z.boolean(),
  status: z.enum(USAGE_STATUSES),
  input_tokens: count,
  output_tokens: count,
  cached_input_tokens: count,
  cache_write_tokens: count,
  cache_write_1h_tokens: count,
  reasoning_tokens: count,
  images: count,
  web_search_requests: count,
  cost: z.string(),
  cost_nano: z.string().regex(/^\d+$/),
  estimated: z.boolean().describe("The upstream reported no usage; the gateway estimated it."),
  ttfb_ms: z.number().int().nullable(),
  duration_ms: z.number().int(),
  created_at: isoDateTime.describe("When the request arrived."),
  finished_at: isoDateTime.describe("When it ended; `from`/`to` and the order use this instant."),
  attempts: z.array(requestAttemptSchema).describe("The upstream attempts in order (failover makes several); empty for requests recorded before the gateway kept them."),
});
export type RequestObject = z.output<typeof requestSchema>;

export const auditEntrySchema = z.object({
  id: z.string().describe("aud_..."),
  object: z.literal("audit_entry"),
  action: z.string().describe("key.created, key.updated, key.rotated or key.revoked."),
  key_id: z.string().nullable(),
  token_id: z.string().nullable().describe("The vendor token that acted; null for the operator CLI."),
  request_id: z.string().nullable(),
  changes: z.record(z.string(), z.unknown()).describe("The fields changed and their new values (never a secret)."),
  created_at: isoDateTime,
});
export type AuditEntryObject = z.output<typeof auditEntrySchema>;

export const requestListSchema = listOf(requestSchema);
export const auditEntryListSchema = listOf(auditEntrySchema);

// ---------------------------------------------------------------- the caller

/** GET /api/token: the calling vendor token, so a client (the console) knows its scopes up front. Never the secret or its hash. */
export const vendorTokenSchema = z.object({
  object: z.literal("vendor_token"),
  id: z.string().describe("vtk_..."),
  name: z.string().describe("The name the operator gave the token."),
  prefix: z.string().describe("The token's first characters (vt_ab12), to tell tokens apart."),
  vendor: z.object({ id: z.string().describe("vnd_..."), name: z.string() }),
  scopes: z.array(z.enum(VENDOR_SCOPES)).describe("What the token may do; a route that needs another scope answers 403 missing_scope."),
  created_at: isoDateTime,
  last_used_at: isoDateTime.nullable().describe("Recorded to the minute; null before the first call."),
});
export type VendorTokenObject = z.output<typeof vendorTokenSchema>;
