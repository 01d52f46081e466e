import { z } from "zod";

/**
 * Every body, query and response of the vendor API (contract section 6), once. Routes validate
 * with these schemas and the OpenAPI document is generated from them, so the two cannot drift.
 * Request bodies are strict: a misspelt field (`quota_usd`) is refused, not silently dropped into
 * an unlimited key.
 */
const POSTGRES_INT_MAX = 2_147_483_647;

const rateLimit = z.number().int().positive().max(POSTGRES_INT_MAX);
const isoDateTime = z.iso.datetime({ offset: true });

// ---------------------------------------------------------------- requests

export const createKeyBodySchema = z.strictObject({
  server_option: z.string().min(1).max(200).describe("Name of a server option assigned to your vendor."),
  name: z.string().max(200).default("").describe("Free text shown in lists."),
  quota: z
    .string()
    .regex(/^\d{1,9}(\.\d{1,6})?$/, "a decimal USD amount as a string with at most 6 decimals, e.g. \"10.00\"")
    .nullable()
    .default(null)
    .describe("Spending limit in USD; null for unlimited."),
  expires_at: isoDateTime
    .refine((value) => Date.parse(value) > Date.now(), "must be in the future")
    .nullable()
    .default(null)
    .describe("ISO 8601 date-time after which the key stops working; null for never."),
  rate_limits: z
    .strictObject({
      rpm: rateLimit.nullable().default(null).describe("Requests per minute; null for the server option's default."),
      tpm: rateLimit.nullable().default(null).describe("Tokens per minute; null for the server option's default."),
    })
    .default({ rpm: null, tpm: null }),
  metadata: z.record(z.string(), z.unknown()).default({}).describe("Your own data, returned as given."),
});
export type CreateKeyBody = z.output<typeof createKeyBodySchema>;

export const pageQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20).describe("Items per page, 1 to 100."),
  cursor: z.string().min(1).max(500).optional().describe("`next_cursor` of the previous page."),
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

const keyStatus = z.enum(["active", "revoked"]);
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
});
export type ApiKeyObject = z.output<typeof apiKeySchema>;

export const createdApiKeySchema = apiKeySchema.extend({
  key: z.string().describe("The plaintext key sk-...; shown only in this response (and its idempotent replays)."),
});
export type CreatedApiKeyObject = z.output<typeof createdApiKeySchema>;

const modelPriceSchema = z.object({
  input: z.string().describe("USD per million input tokens."),
  output: z.string().describe("USD per million output tokens."),
  cached_input: z.string().describe("USD per million cached input tokens."),
  image: z.string().describe("USD per generated image."),
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

function listOf<Item extends z.ZodType>(item: Item) {
  return z.object({ object: z.literal("list"), data: z.array(item), has_more: z.boolean(), next_cursor: z.string().nullable() });
}
export const apiKeyListSchema = listOf(apiKeySchema);
export const serverOptionListSchema = listOf(serverOptionSchema);

const usageLine = z.object({ requests: z.number().int(), input_tokens: z.number().int(), output_tokens: z.number().int(), images: z.number().int(), cost: z.string() });

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
