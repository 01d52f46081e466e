import type { Usage } from "@gateway/contracts";
import { anthropicUsage, chatUsageBody } from "../shared/usage-bodies.ts";

/** Anthropic usage -> Chat Completions usage: prompt_tokens = input + cache writes + cache reads. */
export function chatUsageFromMessages(value: unknown, base: Usage | null = null): { usage: Usage; body: Record<string, unknown> } | null {
  const usage = anthropicUsage(value, base);
  return usage ? { usage, body: chatUsageBody(usage) } : null;
}
