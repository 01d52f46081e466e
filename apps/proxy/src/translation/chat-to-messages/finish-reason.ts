import type { AnthropicStopReason, ChatFinishReason } from "../shared/stop-reasons.ts";

/**
 * Anthropic stop_reason -> Chat Completions finish_reason. A stop sequence is a `stop` (OpenAI's
 * own meaning); the sequence itself rides along on the choice as `stop_sequence`. pause_turn (a
 * long turn of web searches paused by Anthropic) gives what came as the answer: a plain stop.
 */
export function chatFinishReason(stop: AnthropicStopReason | null): ChatFinishReason {
  switch (stop) {
    case null:
    case "end_turn":
    case "stop_sequence":
    case "pause_turn":
      return "stop";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "tool_use":
      return "tool_calls";
    case "refusal":
      return "content_filter";
    default: {
      const never: never = stop;
      return never;
    }
  }
}
