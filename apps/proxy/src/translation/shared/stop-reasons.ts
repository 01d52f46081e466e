/** Anthropic `stop_reason` values (anthropic-sdk-typescript `StopReason`). */
export type AnthropicStopReason = "end_turn" | "max_tokens" | "stop_sequence" | "tool_use" | "pause_turn" | "refusal" | "model_context_window_exceeded";

/** Chat Completions `finish_reason` values (openai-node `ChatCompletion.Choice`). */
export type ChatFinishReason = "stop" | "length" | "tool_calls" | "content_filter" | "function_call";

/** An upstream's stop reason, read leniently: anything unknown becomes null (a value, not a throw). */
export function asAnthropicStopReason(value: unknown): AnthropicStopReason | null {
  switch (value) {
    case "end_turn":
    case "max_tokens":
    case "stop_sequence":
    case "tool_use":
    case "pause_turn":
    case "refusal":
    case "model_context_window_exceeded":
      return value;
    default:
      return null;
  }
}

export function asChatFinishReason(value: unknown): ChatFinishReason | null {
  switch (value) {
    case "stop":
    case "length":
    case "tool_calls":
    case "content_filter":
    case "function_call":
      return value;
    default:
      return null;
  }
}

export type { ResponsesOutcome } from "../../shapes/openai-responses/finish.ts";
