import { BUDGET_PERIODS, MAX_MONEY_NANO, parseUsdToNano } from "@gateway/contracts";
import { z } from "zod";

/**
 * Every body, query and response of the vendor API (contract section 6), once. Routes validate
 * with these schemas and the OpenAPI document is generated from them, so the two cannot drift.
 * Request bodies are strict: a misspelt field (`quota_usd`) is refused, not silently dropped into
 * an unlimited key.
 */
const POSTGRES_INT_MAX = 2_147_483_647;

const rateLimit = z.number().int().positive().max(POSTGRES_INT_MAX);
export const isoDateTime = z.iso.datetime({ offset: true });
/**
 * A USD amount as a decimal string: no sign, no exponent, at most 6 decimals, at most
 * 1,000,000,000 USD (contract section 14: above is a 400 naming the field, never a database error).
 */
const USD_AMOUNT = /^\d{1,10}(\.\d{1,6})?$/;
export const usdAmount = z
  .string()
  .regex(USD_AMOUNT, "a decimal USD amount as a string with at most 6 decimals, e.g. \"10.00\"")
  // zod runs every check of a string, so the bound skips text the pattern refused (parsing it would throw).
  .refine((value) => !USD_AMOUNT.test(value) || parseUsdToNano(value) <= MAX_MONEY_NANO, "at most 1000000000 USD");
export const futureDateTime = isoDateTime.refine((value) => Date.parse(value) > Date.now(), "must be in the future");
/** Text stored in Postgres: no NUL (a text or jsonb column refuses it) and no other C0 control but tab and newlines. */
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/;
export const plainText = (max: number) => z.string().max(max).refine((value) => !CONTROL_CHARACTERS.test(value), "must not contain control characters");

const METADATA_MAX_BYTES = 16 * 1024;
const METADATA_MAX_DEPTH = 8;

/** Depth of nested objects/arrays, and whether any key or string holds a NUL (jsonb cannot). */
function metadataProblem(value: unknown, depth = 0): string | null {
  if (depth > METADATA_MAX_DEPTH) return `nested deeper than ${METADATA_MAX_DEPTH} levels`;
  if (typeof value === "string") return value.includes("\u0000") ? "must not contain NUL characters" : null;
  if (typeof value !== "object" || value === null) return null;
  for (const [key, item] of Object.entries(value)) {
    if (key.includes("\u0000")) return "must not contain NUL characters";
    const problem = metadataProblem(item, depth + 1);
    if (problem) return problem;
  }
  return null;
}

/** Your own data on a key: an object, at most 16 KiB as JSON and 8 levels deep, returned as given. */
export const metadataInput = z.record(z.string(), z.unknown()).superRefine((value, context) => {
  const problem = metadataProblem(value);
  if (problem) context.addIssue({ code: "custom", message: problem });
  else if (Buffer.byteLength(JSON.stringify(value)) > METADATA_MAX_BYTES) context.addIssue({ code: "custom", message: `larger than ${METADATA_MAX_BYTES} bytes as JSON` });
});

export const budgetInput = z
  .strictObject({
    limit: usdAmount.describe("USD that may be spent per period."),
    period: z.enum(BUDGET_PERIODS).describe("UTC day, week (from Monday) or calendar month."),
  })
  .describe("Spend per period beside the lifetime quota; 429 `budget_exceeded` once spent, again allowed from the next period.");

// ---------------------------------------------------------------- requests

export const createKeyBodySchema = z.strictObject({
  server_option: plainText(200).min(1).describe("Name of a server option assigned to your vendor."),
  name: plainText(200).default("").describe("Free text shown in lists."),
  quota: usdAmount.nullable().default(null).describe("Spending limit in USD; null for unlimited."),
  expires_at: futureDateTime.nullable().default(null).describe("ISO 8601 date-time after which the key stops working; null for never."),
  rate_limits: z
    .strictObject({
      rpm: rateLimit.nullable().default(null).describe("Requests per minute; null for the server option's default."),
      tpm: rateLimit.nullable().default(null).describe("Tokens per minute; null for the server option's default."),
    })
    .default({ rpm: null, tpm: null }),
  metadata: metadataInput.default({}).describe("Your own data (at most 16 KiB, 8 levels), returned as given."),
  budget: budgetInput.nullable().default(null),
  customer_id: z.string().min(1).max(200).nullable().default(null).describe("The customer (`cus_...`) the key belongs to: its budget, plan and wallet then apply (contract section 19)."),
});
export type CreateKeyBody = z.output<typeof createKeyBodySchema>;

/** PATCH /api/keys/{id}: every field optional; only those sent change. */
export const updateKeyBodySchema = z
  .strictObject({
    name: plainText(200).optional(),
    quota: usdAmount.nullable().optional().describe("New spending limit in USD; null for unlimited."),
    quota_add: usdAmount.optional().describe("USD added to the current limit atomically (a top-up); 400 on an unlimited key."),
    rate_limits: z
      .strictObject({
        rpm: rateLimit.nullable().optional().describe("Requests per minute; null for the server option's default."),
        tpm: rateLimit.nullable().optional().describe("Tokens per minute; null for the server option's default."),
      })
      .optional(),
    expires_at: futureDateTime.nullable().optional().describe("ISO 8601 date-time; null for never."),
    metadata: metadataInput.optional().describe("Replaces the key's metadata (at most 16 KiB, 8 levels)."),
    budget: budgetInput.nullable().optional(),
    status: z.enum(["active", "disabled"]).optional().describe("`disabled` pauses the key (401 `key_disabled`) until it is `active` again."),
  })
  .refine((body) => body.quota === undefined || body.quota_add === undefined, { message: "send either quota or quota_add, not both", path: ["quota_add"] });
export type UpdateKeyBody = z.output<typeof updateKeyBodySchema>;

/** POST /api/keys/{id}/rotate. */
export const rotateKeyBodySchema = z.strictObject({
  grace_seconds: z.number().int().min(0).max(86_400).default(0).describe("Seconds the replaced secret keeps working (0 to 86400)."),
});

export const pageQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20).describe("Items per page, 1 to 100."),
  cursor: z.string().min(1).max(500).optional().describe("`next_cursor` of the previous page."),
});

/** GET /api/keys filters, beside `limit` and `cursor`. */
export const keyListQuerySchema = z.object({
  status: z.enum(["active", "disabled", "revoked"]).optional().describe("Only keys in this status."),
  search: z.string().min(1).max(200).optional().describe("Case-insensitive match on the name, or the exact id or display prefix."),
  customer_id: z.string().min(1).max(200).optional().describe("Only the keys of this customer (`cus_...`)."),
});

export const usageQuerySchema = z.object({
  from: isoDateTime.optional().describe("Start of the window (inclusive), ISO 8601."),
  to: isoDateTime.optional().describe("End of the window (exclusive), ISO 8601."),
});

export const idempotencyKeyHeaderSchema = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[\x21-\x7e]+$/, "visible ASCII characters only")
  .describe("Makes the request safe to retry: the same key and body within 24 h return the first response.");

// ---------------------------------------------------------------- responses

const keyStatus = z.enum(["active", "disabled", "revoked"]);
const effectiveRateLimits = z.object({ rpm: z.number().int().nullable(), tpm: z.number().int().nullable() });

export const apiKeySchema = z.object({
  id: z.string().describe("key_..."),
  object: z.literal("api_key"),
  prefix: z.string().describe("The first characters of the key, safe to show: sk-ab12."),
  name: z.string(),
  server_option: z.string(),
  quota: z.string().nullable().describe("USD, 6 decimals; null for unlimited."),
  expires_at: isoDateTime.nullable(),
  created_at: isoDateTime,
  status: keyStatus,
  rate_limits: effectiveRateLimits,
  metadata: z.record(z.string(), z.unknown()),
  budget: z
    .object({
      limit: z.string().describe("USD per period."),
      period: z.enum(BUDGET_PERIODS),
      used: z.string().describe("USD spent in the current period, from the ledger."),
      resets_at: isoDateTime.describe("Start of the next period (UTC)."),
    })
    .nullable(),
  last_used_at: isoDateTime.nullable().describe("End of the key's latest request in the ledger."),
  customer_id: z.string().nullable().describe("The customer (`cus_...`) the key belongs to; null for none."),
});
export type ApiKeyObject = z.output<typeof apiKeySchema>;

export const createdApiKeySchema = apiKeySchema.extend({
  key: z.string().describe("The plaintext key sk-...; shown only in this response (and its idempotent replays)."),
});
export type CreatedApiKeyObject = z.output<typeof createdApiKeySchema>;

const unitPriceFields = {
  input: z.string().describe("USD per million input tokens."),
  output: z.string().describe("USD per million output tokens (reasoning included)."),
  cached_input: z.string().describe("USD per million cached input tokens (cache reads)."),
  cache_write: z.string().describe("USD per million 5-minute cache-write tokens."),
  cache_write_1h: z.string().describe("USD per million 1-hour cache-write tokens."),
  image: z.string().describe("USD per generated image."),
  request: z.string().describe("USD per request (flat)."),
  web_search: z.string().describe("USD per server-side web search."),
};

const modelPriceSchema = z.object({
  ...unitPriceFields,
  tiers: z
    .array(z.object({ above_input_tokens: z.number().int().describe("A request whose total input is above this pays the tier's prices for all its tokens."), ...unitPriceFields }))
    .describe("Long-context tiers, ascending; the highest threshold crossed wins."),
});

export const serverOptionSchema = z.object({
  id: z.string().describe("so_..."),
  name: z.string(),
  description: z.string(),
  models: z.array(z.string()).describe("Public model names a key of this option may call."),
  pricing: z.record(z.string(), modelPriceSchema).describe("Per model, after overrides and the option's multiplier."),
  rate_limits: effectiveRateLimits,
});
export type ServerOptionObject = z.output<typeof serverOptionSchema>;

/** A page of a list endpoint: `{ object: "list", data, has_more, next_cursor }`. */
export function listOf<Item extends z.ZodType>(item: Item) {
  return z.object({ object: z.literal("list"), data: z.array(item), has_more: z.boolean(), next_cursor: z.string().nullable() });
}
export const apiKeyListSchema = listOf(apiKeySchema);
export const serverOptionListSchema = listOf(serverOptionSchema);

const usageLine = z.object({
  requests: z.number().int(),
  input_tokens: z.number().int().describe("All input tokens, cache reads and writes included."),
  output_tokens: z.number().int().describe("All output tokens, reasoning included."),
  cached_input_tokens: z.number().int().describe("Part of input_tokens read from the prompt cache."),
  cache_write_tokens: z.number().int().describe("Part of input_tokens written to the prompt cache (5-minute and 1-hour)."),
  cache_write_1h_tokens: z.number().int().describe("Part of cache_write_tokens written for one hour."),
  reasoning_tokens: z.number().int().describe("Part of output_tokens spent on reasoning."),
  images: z.number().int(),
  web_search_requests: z.number().int().describe("Server-side web searches."),
  cost: z.string(),
});

export const keyUsageSchema = z.object({
  object: z.literal("usage"),
  key: z.object({ id: z.string(), name: z.string(), prefix: z.string(), server_option: z.string(), status: keyStatus, expires_at: isoDateTime.nullable() }),
  quota: z.object({ limit: z.string().nullable(), used: z.string(), remaining: z.string().nullable(), currency: z.literal("USD") }),
  consumption: usageLine,
  by_model: z.array(usageLine.extend({ model: z.string() })),
  rate_limits: effectiveRateLimits,
});

export const errorEnvelopeSchema = z.object({
  type: z.literal("error"),
  error: z.object({ type: z.string(), message: z.string(), code: z.string().nullable(), param: z.string().nullable() }),
  request_id: z.string().describe("req_..., also in the x-request-id header."),
});
