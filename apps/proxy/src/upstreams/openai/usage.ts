import { EMPTY_USAGE, type Usage } from "@gateway/contracts";
import { asRecord, count } from "../request-fields.ts";

/**
 * OpenAI chat usage -> ours. prompt_tokens already includes the cached part and completion_tokens
 * the reasoning part; we keep those parts apart so each token is priced exactly once.
 */
export function chatUsage(value: unknown): Usage | null {
  const usage = asRecord(value);
  if (!usage) return null;
  return {
    inputTokens: count(usage.prompt_tokens),
    outputTokens: count(usage.completion_tokens),
    cachedInputTokens: count(asRecord(usage.prompt_tokens_details)?.cached_tokens),
    cacheWriteTokens: 0,
    cacheWrite1hTokens: 0,
    reasoningTokens: count(asRecord(usage.completion_tokens_details)?.reasoning_tokens),
    images: 0,
    webSearchRequests: 0,
  };
}

/** Responses (and gpt-image) usage: input_tokens / output_tokens with their details. */
export function responsesUsage(value: unknown, images = 0): Usage | null {
  const usage = asRecord(value);
  if (!usage) return images > 0 ? { ...EMPTY_USAGE, images } : null;
  return {
    inputTokens: count(usage.input_tokens),
    outputTokens: count(usage.output_tokens),
    cachedInputTokens: count(asRecord(usage.input_tokens_details)?.cached_tokens),
    cacheWriteTokens: count(asRecord(usage.input_tokens_details)?.cache_write_tokens),
    cacheWrite1hTokens: 0,
    reasoningTokens: count(asRecord(usage.output_tokens_details)?.reasoning_tokens),
    images,
    webSearchRequests: 0,
  };
}
