import { asRecord } from "../../upstreams/request-fields.ts";
import type { DroppedParams } from "./dropped-params.ts";
import { invalid, isSet } from "./fields.ts";
import { anthropicThinkingFromEffort } from "./reasoning-effort.ts";
import { anthropicToolChoice, type ToolChoice } from "./tool-choice.ts";

export type AnthropicBlock = Record<string, unknown>;
export interface AnthropicMessage {
  role: "user" | "assistant";
  content: AnthropicBlock[];
}

/**
 * Builds the `messages` array turn by turn. Consecutive blocks of one role become one turn, the way
 * Anthropic itself combines them; that also puts tool results (OpenAI `tool` messages / Responses
 * `function_call_output` items) into the one user turn that must follow the tool_use turn.
 */
export class TurnBuilder {
  readonly messages: AnthropicMessage[] = [];

  add(role: "user" | "assistant", blocks: AnthropicBlock[]): void {
    if (blocks.length === 0) return;
    const last = this.messages.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else this.messages.push({ role, content: [...blocks] });
  }
}

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

/**
 * A system prompt: one string stays a string; several parts become text blocks, so their
 * boundaries are kept.
 */
export function anthropicSystem(texts: string[]): string | AnthropicBlock[] | undefined {
  if (texts.length === 0) return undefined;
  if (texts.length === 1) return texts[0];
  return texts.map((text) => ({ type: "text", text }));
}

/** Anthropic refuses empty text blocks; an empty text carries nothing, so it is left out. */
export function textBlock(text: string): AnthropicBlock[] {
  return text.length > 0 ? [{ type: "text", text }] : [];
}
