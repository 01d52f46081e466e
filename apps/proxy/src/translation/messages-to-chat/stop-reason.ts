import type { AnthropicStopReason, ChatFinishReason } from "../shared/stop-reasons.ts";

/**
 * Chat Completions finish_reason -> Anthropic stop_reason. OpenAI reports a matched stop sequence
 * as a plain `stop` without saying which one, so it reads as end_turn (stop_sequence null) rather
 * than a guess. A refusal (content_filter) is Anthropic's `refusal`.
 */
export function anthropicStopReason(finish: ChatFinishReason | null): AnthropicStopReason {
  switch (finish) {
    case null:
    case "stop":
      return "end_turn";
    case "length":
      return "max_tokens";
    case "tool_calls":
    case "function_call":
      return "tool_use";
    case "content_filter":
      return "refusal";
    default: {
      const never: never = finish;
      return never;
    }
  }
}
