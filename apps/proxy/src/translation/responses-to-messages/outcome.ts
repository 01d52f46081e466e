import type { AnthropicStopReason, ResponsesOutcome } from "../shared/stop-reasons.ts";

/** Anthropic stop_reason -> the Responses status: max tokens and refusals are incomplete. */
export function responsesOutcomeFromMessages(stop: AnthropicStopReason | null): ResponsesOutcome {
  switch (stop) {
    case null:
    case "end_turn":
    case "stop_sequence":
    case "tool_use":
    case "pause_turn":
      return { status: "completed" };
    case "max_tokens":
    case "model_context_window_exceeded":
      return { status: "incomplete", reason: "max_output_tokens" };
    case "refusal":
      return { status: "incomplete", reason: "content_filter" };
    default: {
      const never: never = stop;
      return never;
    }
  }
}
