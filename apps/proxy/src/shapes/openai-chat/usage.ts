import type { Usage } from "@gateway/contracts";

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
