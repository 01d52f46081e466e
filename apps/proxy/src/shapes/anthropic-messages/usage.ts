import type { Usage } from "@gateway/contracts";
import { asRecord, count } from "../../core/request-fields.ts";

/**
 * Anthropic usage -> ours. input_tokens excludes the cache fields, so total input is the sum of
 * all three (Portkey PR #1754); the cache parts are kept apart to be priced once each:
 * cache_read_input_tokens (reads), cache_creation_input_tokens (writes), split into 5-minute and
 * 1-hour writes by cache_creation.ephemeral_5m_input_tokens / ephemeral_1h_input_tokens when given
 * (without the split every write is a 5-minute one), and server_tool_use.web_search_requests.
 * https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching#tracking-cache-performance
 *
 * In a stream `base` is what earlier events said: message_delta.usage is cumulative and may leave
 * fields out, so a field not given keeps its earlier value.
 */
export function messagesUsage(value: unknown, base: Usage | null = null): Usage | null {
  const usage = asRecord(value);
  if (!usage) return base;
  const given = (record: Record<string, unknown> | null, name: string) => record !== null && record[name] !== undefined && record[name] !== null;
  const field = (name: string, fallback: number) => (given(usage, name) ? count(usage[name]) : fallback);
  const cacheRead = field("cache_read_input_tokens", base?.cachedInputTokens ?? 0);
  const split = asRecord(usage.cache_creation);
  const splitGiven = given(split, "ephemeral_5m_input_tokens") || given(split, "ephemeral_1h_input_tokens");
  const writesTotal = given(usage, "cache_creation_input_tokens")
    ? count(usage.cache_creation_input_tokens)
    : splitGiven
      ? count(split?.ephemeral_5m_input_tokens) + count(split?.ephemeral_1h_input_tokens)
      : (base?.cacheWriteTokens ?? 0);
  // A total without its split keeps the split an earlier event of the stream gave (none: all 5-minute).
  const writes1h = splitGiven ? count(split?.ephemeral_1h_input_tokens) : Math.min(base?.cacheWrite1hTokens ?? 0, writesTotal);
  const uncached = field("input_tokens", base ? base.inputTokens - base.cachedInputTokens - base.cacheWriteTokens : 0);
  const serverTools = asRecord(usage.server_tool_use);
  return {
    inputTokens: uncached + cacheRead + Math.max(writesTotal, writes1h),
    outputTokens: field("output_tokens", base?.outputTokens ?? 0),
    cachedInputTokens: cacheRead,
    cacheWriteTokens: Math.max(writesTotal, writes1h),
    cacheWrite1hTokens: writes1h,
    reasoningTokens: base?.reasoningTokens ?? 0,
    images: 0,
    webSearchRequests: given(serverTools, "web_search_requests") ? count(serverTools?.web_search_requests) : (base?.webSearchRequests ?? 0),
  };
}

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
