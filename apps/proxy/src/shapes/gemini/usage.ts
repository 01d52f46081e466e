import type { Usage } from "@gateway/contracts";
import { asRecord, count } from "../../core/request-fields.ts";

/**
 * Gemini `usageMetadata` -> the gateway's `Usage` (shared/design/neutral-core.md section 6):
 * `promptTokenCount` includes the cached part, and tool-use prompt tokens are input too;
 * `candidatesTokenCount` excludes the thoughts, so output is both (thoughts are billed as output);
 * explicit caches are written through `cachedContents`, never per request (no cache writes). Null
 * when the body has none.
 */
export function geminiUsage(value: unknown): Usage | null {
  const usage = asRecord(value);
  if (!usage) return null;
  const thoughts = count(usage.thoughtsTokenCount);
  return {
    inputTokens: count(usage.promptTokenCount) + count(usage.toolUsePromptTokenCount),
    outputTokens: count(usage.candidatesTokenCount) + thoughts,
    cachedInputTokens: count(usage.cachedContentTokenCount),
    cacheWriteTokens: 0,
    cacheWrite1hTokens: 0,
    reasoningTokens: thoughts,
    images: 0,
    webSearchRequests: 0,
  };
}

/**
 * The gateway's `Usage` in Gemini words, for a Gemini client: candidates are the output without
 * the reasoning, the cached and thought counts left out at 0 (as Google leaves them out).
 */
export function geminiUsageMetadata(usage: Usage): Record<string, unknown> {
  const body: Record<string, unknown> = {
    promptTokenCount: usage.inputTokens,
    candidatesTokenCount: usage.outputTokens - usage.reasoningTokens,
    totalTokenCount: usage.inputTokens + usage.outputTokens,
  };
  if (usage.cachedInputTokens > 0) body.cachedContentTokenCount = usage.cachedInputTokens;
  if (usage.reasoningTokens > 0) body.thoughtsTokenCount = usage.reasoningTokens;
  return body;
}
