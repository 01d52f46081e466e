import type { Usage } from "@gateway/contracts";
import { asRecord, count } from "../../core/request-fields.ts";

/**
 * Converse `usage` -> the gateway's `Usage` (shared/notes/wire-gemini-bedrock-vertex-azure.md
 * section 2.1): `inputTokens` excludes the cache reads and writes, so the gateway's input is the sum
 * of the three (as for Anthropic); Bedrock names one cache write kind (no 1-hour split) and no
 * reasoning count (reasoning is in `outputTokens`). Null when the body has none.
 */
export function converseUsage(value: unknown): Usage | null {
  const usage = asRecord(value);
  if (!usage) return null;
  const cacheRead = count(usage.cacheReadInputTokens);
  const cacheWrite = count(usage.cacheWriteInputTokens);
  return {
    inputTokens: count(usage.inputTokens) + cacheRead + cacheWrite,
    outputTokens: count(usage.outputTokens),
    cachedInputTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
    cacheWrite1hTokens: 0,
    reasoningTokens: 0,
    images: 0,
    webSearchRequests: 0,
  };
}
