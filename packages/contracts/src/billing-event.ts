import { z } from "zod";

/**
 * The one billing job: produced by the proxy, consumed by the billing worker. The request id is the
 * BullMQ job id and the ledger's primary key, so a retried event can never bill twice.
 */
export const BILLING_QUEUE = "billing";

export const usageSchema = z.object({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  /** Part of inputTokens read from the provider's prompt cache (priced at the cached rate). */
  cachedInputTokens: z.number().int().nonnegative(),
  /** Part of inputTokens written to the cache (Anthropic cache_creation_input_tokens). */
  cacheWriteTokens: z.number().int().nonnegative(),
  /** Part of outputTokens spent on reasoning (kept apart, priced once, as output). */
  reasoningTokens: z.number().int().nonnegative(),
  images: z.number().int().nonnegative(),
});
export type Usage = z.infer<typeof usageSchema>;

export const EMPTY_USAGE: Usage = Object.freeze({
  inputTokens: 0,
  outputTokens: 0,
  cachedInputTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
  images: 0,
});

export const billingEventSchema = z.object({
  requestId: z.string().startsWith("req_"),
  apiKeyId: z.string(),
  vendorId: z.string(),
  serverOption: z.string(),
  model: z.string(),
  endpoint: z.enum(["chat.completions", "messages", "responses", "images.generations"]),
  upstream: z.string().nullable(),
  upstreamModel: z.string().nullable(),
  status: z.enum(["ok", "error", "client_aborted"]),
  /** The client asked for a stream. Events queued by a proxy that predates the field read as false. */
  stream: z.boolean().default(false),
  /** True when the upstream never reported usage and the proxy estimated it. */
  estimated: z.boolean(),
  usage: usageSchema,
  startedAt: z.number().int(),
  finishedAt: z.number().int(),
  ttfbMs: z.number().int().nullable(),
});
/** An event as a proxy builds it (`stream` may be left out) and as the worker receives it. */
export type BillingEvent = z.input<typeof billingEventSchema>;
