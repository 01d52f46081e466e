import type { Usage } from "@gateway/contracts";
import { chatUsage } from "../../upstreams/openai/usage.ts";
import { anthropicUsageBody } from "../shared/usage-bodies.ts";

/**
 * Chat Completions usage -> Anthropic usage. prompt_tokens includes the cached part; Anthropic's
 * input_tokens does not, so cached tokens move to cache_read_input_tokens (the sum is unchanged).
 */
export function anthropicUsageFromChat(value: unknown): { usage: Usage; body: Record<string, unknown> } | null {
  const usage = chatUsage(value);
  return usage ? { usage, body: anthropicUsageBody(usage) } : null;
}
