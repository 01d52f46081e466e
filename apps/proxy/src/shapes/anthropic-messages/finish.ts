import type { Finish } from "../../core/stream-parts.ts";

/**
 * An Anthropic `stop_reason` (anthropic-sdk-typescript `StopReason`) -> the neutral finish, the
 * raw value kept. Read leniently: an unknown value is `other` (a value, not a throw).
 */
export function finishFromAnthropic(raw: unknown, stopSequence: unknown = null): Finish {
  const value = typeof raw === "string" ? raw : "";
  switch (value) {
    case "end_turn":
      return { reason: "stop", raw: value };
    case "stop_sequence":
      return { reason: "stop-sequence", raw: value, stopSequence };
    case "max_tokens":
    case "model_context_window_exceeded":
      return { reason: "length", raw: value };
    case "tool_use":
      return { reason: "tool-calls", raw: value };
    case "pause_turn":
      return { reason: "pause", raw: value };
    case "refusal":
      return { reason: "filtered", raw: value };
    default:
      return { reason: "other", raw: value };
  }
}

/** Anthropic `stop_reason` values (anthropic-sdk-typescript `StopReason`) this gateway writes. */
export type AnthropicStopReasonWritten = "end_turn" | "max_tokens" | "stop_sequence" | "tool_use" | "pause_turn" | "refusal";

/** A neutral finish -> Anthropic `stop_reason`: a filtered answer is a `refusal`, any other end an `end_turn`. */
export function anthropicStopReasonFor(finish: Finish): AnthropicStopReasonWritten {
  switch (finish.reason) {
    case "stop":
    case "other":
      return "end_turn";
    case "stop-sequence":
      return "stop_sequence";
    case "length":
      return "max_tokens";
    case "tool-calls":
      return "tool_use";
    case "pause":
      return "pause_turn";
    case "filtered":
      return "refusal";
    default: {
      const never: never = finish.reason;
      return never;
    }
  }
}
