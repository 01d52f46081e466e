import { asRecord } from "../../upstreams/request-fields.ts";
import { invalid, unsupported } from "../../core/fields.ts";
import type { ToolChoice } from "../../core/neutral-request.ts";

export type { ToolChoice };

/** Chat Completions `tool_choice`: "auto" | "none" | "required" | {type:"function", function:{name}}. */
export function toolChoiceFromChat(value: unknown): ToolChoice {
  if (value === "auto" || value === "none" || value === "required") return { type: value };
  const choice = asRecord(value);
  const name = asRecord(choice?.function)?.name;
  if (choice?.type === "function" && typeof name === "string") return { type: "function", name };
  if (choice?.type === "allowed_tools" || choice?.type === "custom") {
    throw unsupported("tool_choice", `${choice.type} tool choices have no Anthropic equivalent`);
  }
  throw invalid("tool_choice", "expected auto, none, required or a function choice");
}

/**
 * Responses `tool_choice`: the same strings, or {type:"function"|"custom", name} (a custom tool is
 * a function tool on the other side); hosted-tool choices are refused.
 */
export function toolChoiceFromResponses(value: unknown): ToolChoice {
  if (value === "auto" || value === "none" || value === "required") return { type: value };
  const choice = asRecord(value);
  if ((choice?.type === "function" || choice?.type === "custom") && typeof choice.name === "string") return { type: "function", name: choice.name };
  if (typeof choice?.type === "string") throw unsupported("tool_choice", `${choice.type} tool choices are only available on the Responses API itself`);
  throw invalid("tool_choice", "expected auto, none, required or a function choice");
}

/** Anthropic `tool_choice`: {type:"auto"|"any"|"tool"|"none", name?, disable_parallel_tool_use?}. */
export function toolChoiceFromAnthropic(value: unknown): { choice: ToolChoice; disableParallel: boolean } {
  const choice = asRecord(value);
  const disableParallel = choice?.disable_parallel_tool_use === true;
  switch (choice?.type) {
    case "auto":
      return { choice: { type: "auto" }, disableParallel };
    case "any":
      return { choice: { type: "required" }, disableParallel };
    case "none":
      return { choice: { type: "none" }, disableParallel };
    case "tool":
      if (typeof choice.name !== "string") throw invalid("tool_choice.name", "expected a tool name");
      return { choice: { type: "function", name: choice.name }, disableParallel };
    default:
      throw invalid("tool_choice", "expected a tool choice of type auto, any, tool or none");
  }
}

export function chatToolChoice(choice: ToolChoice): unknown {
  switch (choice.type) {
    case "auto":
    case "none":
    case "required":
      return choice.type;
    case "function":
      return { type: "function", function: { name: choice.name } };
    default: {
      const never: never = choice;
      return never;
    }
  }
}

/** `parallel_tool_calls: false` travels inside Anthropic's tool_choice as disable_parallel_tool_use. */
export function anthropicToolChoice(choice: ToolChoice, disableParallel: boolean): Record<string, unknown> {
  const parallel = disableParallel ? { disable_parallel_tool_use: true } : {};
  switch (choice.type) {
    case "auto":
      return { type: "auto", ...parallel };
    case "none":
      return { type: "none" };
    case "required":
      return { type: "any", ...parallel };
    case "function":
      return { type: "tool", name: choice.name, ...parallel };
    default: {
      const never: never = choice;
      return never;
    }
  }
}
