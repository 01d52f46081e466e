import type { Usage } from "@gateway/contracts";
import { asRecord, count } from "../../core/request-fields.ts";

/** Responses usage -> ours: input_tokens / output_tokens with their details (the cached part, cache writes, reasoning). */
export function responsesUsage(value: unknown): Usage | null {
  const usage = asRecord(value);
  if (!usage) return null;
  return {
    inputTokens: count(usage.input_tokens),
    outputTokens: count(usage.output_tokens),
    cachedInputTokens: count(asRecord(usage.input_tokens_details)?.cached_tokens),
    cacheWriteTokens: count(asRecord(usage.input_tokens_details)?.cache_write_tokens),
    cacheWrite1hTokens: 0,
    reasoningTokens: count(asRecord(usage.output_tokens_details)?.reasoning_tokens),
    images: 0,
    webSearchRequests: 0,
  };
}

/** The gateway's `Usage` in Responses words (`input_tokens` include the cached part, as OpenAI counts). */
export function responsesUsageBody(usage: Usage): Record<string, unknown> {
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: { cached_tokens: usage.cachedInputTokens, cache_write_tokens: usage.cacheWriteTokens },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens },
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}
