import { asRecord } from "./request-fields.ts";
import type { DroppedParams } from "./drops.ts";
import { invalid, isSet } from "./fields.ts";

/** OpenAI `reasoning_effort` values (openai-node `Shared.ReasoningEffort`). */
export type OpenAIEffort = "none" | "minimal" | "low" | "medium" | "high" | "xhigh" | "max";
/** Anthropic `output_config.effort` values. */
type AnthropicEffort = "low" | "medium" | "high" | "xhigh" | "max";

export function asOpenAIEffort(value: unknown, field: string): OpenAIEffort {
  switch (value) {
    case "none":
    case "minimal":
    case "low":
    case "medium":
    case "high":
    case "xhigh":
    case "max":
      return value;
    default:
      throw invalid(field, "expected none, minimal, low, medium, high, xhigh or max");
  }
}

/**
 * OpenAI reasoning effort -> Anthropic thinking. Both APIs now speak "effort": Anthropic's
 * adaptive thinking takes the same low..max scale in `output_config.effort`, so the value maps one
 * to one; `minimal` (no Anthropic level below low) becomes low; `none` turns thinking off.
 */
export function anthropicThinkingFromEffort(value: unknown, field: string): { thinking?: Record<string, unknown>; effort?: AnthropicEffort } {
  if (!isSet(value)) return {};
  const effort = asOpenAIEffort(value, field);
  switch (effort) {
    case "none":
      return { thinking: { type: "disabled" } };
    case "minimal":
      return { thinking: { type: "adaptive" }, effort: "low" };
    case "low":
    case "medium":
    case "high":
    case "xhigh":
    case "max":
      return { thinking: { type: "adaptive" }, effort };
    default: {
      const never: never = effort;
      return never;
    }
  }
}

/**
 * The level a writer that takes levels sends for the neutral reasoning: the client's own, else its
 * budget's nearest level (`effortFromBudget`). A writer that takes a budget reads `budgetTokens`
 * first, so a client's budget reaches a budget-taking model as that number, never rounded to a level.
 */
export function reasoningLevel(reasoning: { effort?: OpenAIEffort; budgetTokens?: number } | undefined): OpenAIEffort | undefined {
  if (reasoning === undefined) return undefined;
  if (reasoning.effort !== undefined) return reasoning.effort;
  return reasoning.budgetTokens !== undefined ? effortFromBudget(reasoning.budgetTokens) : undefined;
}

/**
 * The nearest level to a thinking budget in tokens: below 4k tokens low, below 16k medium, else
 * high (the budgets gateways commonly pair with those levels). The one scale between budgets and
 * levels: OpenAI effort from Anthropic's `budget_tokens`, Gemini's `thinkingLevel` from a budget.
 */
export function effortFromBudget(budget: number): "low" | "medium" | "high" {
  return budget < 4096 ? "low" : budget < 16384 ? "medium" : "high";
}

/**
 * Anthropic thinking -> OpenAI reasoning effort. `output_config.effort` maps one to one. A fixed
 * `budget_tokens` has no OpenAI equivalent, so it picks the nearest level (`effortFromBudget`). Disabled
 * or adaptive thinking without an effort (Claude Code's `{type: "adaptive"}`) leaves the model's
 * default, which is what they mean. A thinking type this gateway does not know only tunes the
 * answer: it is dropped (listed).
 */
export function openaiEffortFromThinking(thinking: unknown, outputEffort: unknown, dropped: DroppedParams): OpenAIEffort | null {
  if (isSet(outputEffort)) {
    if (outputEffort === "low" || outputEffort === "medium" || outputEffort === "high" || outputEffort === "xhigh" || outputEffort === "max") return outputEffort;
    throw invalid("output_config.effort", "expected low, medium, high, xhigh or max");
  }
  if (!isSet(thinking)) return null;
  const config = asRecord(thinking);
  switch (config?.type) {
    case "disabled":
    case "adaptive":
      return null;
    case "enabled": {
      const budget = config.budget_tokens;
      if (typeof budget !== "number") throw invalid("thinking.budget_tokens", "expected a number");
      return effortFromBudget(budget);
    }
    default:
      dropped.drop("thinking", `${String(config?.type)} thinking has no OpenAI equivalent`);
      return null;
  }
}
