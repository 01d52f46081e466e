import type { Usage } from "@gateway/contracts";
import { asRecord, count } from "../request-fields.ts";

/**
 * Anthropic usage -> ours. input_tokens excludes the cache fields, so total input is the sum of
 * all three (Portkey PR #1754); the cache parts are kept apart to be priced once each.
 */
export function messagesUsage(value: unknown, base: Usage | null = null): Usage | null {
  const usage = asRecord(value);
  if (!usage) return base;
  const field = (name: string, fallback: number) => (usage[name] === undefined || usage[name] === null ? fallback : count(usage[name]));
  const cacheRead = field("cache_read_input_tokens", base?.cachedInputTokens ?? 0);
  const cacheWrite = field("cache_creation_input_tokens", base?.cacheWriteTokens ?? 0);
  const uncached = field("input_tokens", base ? base.inputTokens - base.cachedInputTokens - base.cacheWriteTokens : 0);
  return {
    inputTokens: uncached + cacheRead + cacheWrite,
    outputTokens: field("output_tokens", base?.outputTokens ?? 0),
    cachedInputTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
    reasoningTokens: 0,
    images: 0,
  };
}
