// The turn builder moved to shapes/anthropic-messages/writer/turns.ts (neutral-core step 6); what
// follows serves responses-to-messages/request.ts until it is a facade over the core too.
import { asRecord } from "../../upstreams/request-fields.ts";
import type { DroppedParams } from "../../core/drops.ts";
import { invalid, isSet } from "../../core/fields.ts";
import { anthropicThinkingFromEffort } from "../../core/reasoning.ts";
import { anthropicToolChoice, type ToolChoice } from "./tool-choice.ts";

export * from "../../shapes/anthropic-messages/writer/turns.ts";

/** An OpenAI function tool (its name, description, JSON schema) -> an Anthropic custom tool. */
export function anthropicTool(fn: Record<string, unknown>, field: string): Record<string, unknown> {
  if (typeof fn.name !== "string" || fn.name.length === 0) throw invalid(`${field}.name`, "expected a tool name");
  const tool: Record<string, unknown> = { name: fn.name, input_schema: asRecord(fn.parameters) ?? { type: "object", properties: {} } };
  if (typeof fn.description === "string") tool.description = fn.description;
  if (typeof fn.strict === "boolean") tool.strict = fn.strict;
  return tool;
}

/**
 * Tools, tool choice and parallel calls: the three travel together in Anthropic's request. Without
 * tools, a parallel-calls setting has nothing to apply to and is dropped.
 */
export function anthropicTools(body: Record<string, unknown>, tools: Record<string, unknown>[], choice: ToolChoice | null, parallel: unknown, dropped: DroppedParams): void {
  if (tools.length === 0) {
    // Without tools, "auto" and "none" change nothing; a forced choice the upstream must refuse.
    if (choice?.type === "required" || choice?.type === "function") throw invalid("tool_choice", "a tool choice needs tools");
    if (typeof parallel === "boolean") dropped.drop("parallel_tool_calls", "there are no tools to call in parallel");
    return;
  }
  body.tools = tools;
  const disableParallel = parallel === false;
  if (choice || disableParallel) body.tool_choice = anthropicToolChoice(choice ?? { type: "auto" }, disableParallel);
}

/**
 * OpenAI's temperature runs 0..2, Anthropic's 0..1: a value above 1 cannot be expressed, and a
 * sampling hint only tunes the answer, so it is dropped (the model's default applies).
 */
export function anthropicTemperature(value: unknown, dropped: DroppedParams): number | undefined {
  if (!isSet(value)) return undefined;
  if (typeof value !== "number") throw invalid("temperature", "expected a number");
  if (value > 1) {
    dropped.drop("temperature", "Anthropic-shape models accept 0 to 1");
    return undefined;
  }
  return value;
}

/** Reasoning effort and a JSON-schema output format share Anthropic's `output_config`. */
export function anthropicOutputConfig(body: Record<string, unknown>, effortValue: unknown, effortField: string, schema: Record<string, unknown> | null): void {
  const { thinking, effort } = anthropicThinkingFromEffort(effortValue, effortField);
  if (thinking) body.thinking = thinking;
  const config: Record<string, unknown> = {};
  if (effort) config.effort = effort;
  if (schema) config.format = { type: "json_schema", schema };
  if (Object.keys(config).length > 0) body.output_config = config;
}

