import type { Usage } from "@gateway/contracts";
import { asRecord, count } from "../../core/request-fields.ts";

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

/**
 * The gateway's `Usage` in Chat Completions words: prompt_tokens include the cached part (as
 * OpenAI counts), reasoning tokens are part of completion_tokens.
 */
export function chatUsageBody(usage: Usage): Record<string, unknown> {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: usage.cachedInputTokens },
    completion_tokens_details: { reasoning_tokens: usage.reasoningTokens },
  };
}
