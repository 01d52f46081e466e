import type { Usage } from "@gateway/contracts";
import { messagesUsage } from "../../upstreams/anthropic/usage.ts";
import { asRecord, count } from "../../upstreams/request-fields.ts";

/** Anthropic usage (cumulative over a stream, like the tracker) plus its thinking-token detail. */
export function anthropicUsage(value: unknown, base: Usage | null = null): Usage | null {
  const usage = messagesUsage(value, base);
  if (!usage) return null;
  const thinking = asRecord(asRecord(value)?.output_tokens_details)?.thinking_tokens;
  return { ...usage, reasoningTokens: thinking === undefined ? (base?.reasoningTokens ?? 0) : count(thinking) };
}

/**
 * The gateway's `Usage` in Anthropic words: input_tokens exclude both cache fields. The optional
 * parts (the 5-minute / 1-hour split, server tool use, thinking) appear only when they carry a
 * value, as the native API omits them (contract section 11).
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
