import type { Usage } from "@gateway/contracts";
import { messagesUsage } from "../../upstreams/anthropic/usage.ts";
import { asRecord, count } from "../../upstreams/request-fields.ts";

/**
 * Usage in each shape's own words, written from the gateway's `Usage` (which the upstream trackers
 * already read). Totals are kept: OpenAI's prompt tokens include the cached part, Anthropic's
 * input_tokens exclude both cache fields.
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

/**
 * The optional parts (the 5-minute / 1-hour split, server tool use, thinking) appear only when they
 * carry a value, as the native API omits them (contract section 11).
 */
export function anthropicUsageBody(usage: Usage): Record<string, unknown> {
  return {
    input_tokens: Math.max(0, usage.inputTokens - usage.cachedInputTokens - usage.cacheWriteTokens),
    cache_creation_input_tokens: usage.cacheWriteTokens,
    cache_read_input_tokens: usage.cachedInputTokens,
    ...(usage.cacheWriteTokens > 0
      ? { cache_creation: { ephemeral_5m_input_tokens: Math.max(0, usage.cacheWriteTokens - usage.cacheWrite1hTokens), ephemeral_1h_input_tokens: usage.cacheWrite1hTokens } }
      : {}),
    output_tokens: usage.outputTokens,
    ...(usage.webSearchRequests > 0 ? { server_tool_use: { web_search_requests: usage.webSearchRequests } } : {}),
    ...(usage.reasoningTokens > 0 ? { output_tokens_details: { thinking_tokens: usage.reasoningTokens } } : {}),
  };
}

export function responsesUsageBody(usage: Usage): Record<string, unknown> {
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: { cached_tokens: usage.cachedInputTokens, cache_write_tokens: usage.cacheWriteTokens },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens },
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}

/** Anthropic usage (cumulative over a stream, like the tracker) plus its thinking-token detail. */
export function anthropicUsage(value: unknown, base: Usage | null = null): Usage | null {
  const usage = messagesUsage(value, base);
  if (!usage) return null;
  const thinking = asRecord(asRecord(value)?.output_tokens_details)?.thinking_tokens;
  return { ...usage, reasoningTokens: thinking === undefined ? (base?.reasoningTokens ?? 0) : count(thinking) };
}
