import type { Finish } from "../../core/stream-parts.ts";

/**
 * A Chat Completions `finish_reason` (openai-node `ChatCompletion.Choice`) -> the neutral finish,
 * the raw value kept; null for a value chat does not define (read leniently: a value, not a throw).
 * OpenAI reports a matched stop sequence as a plain `stop` without saying which one.
 */
export function finishFromChat(raw: unknown): Finish | null {
  switch (raw) {
    case "stop":
      return { reason: "stop", raw };
    case "length":
      return { reason: "length", raw };
    case "tool_calls":
    case "function_call":
      return { reason: "tool-calls", raw };
    case "content_filter":
      return { reason: "filtered", raw };
    default:
      return null;
  }
}

/**
 * A neutral finish (none seen: a plain stop) -> Chat Completions finish_reason. A stop sequence is
 * a `stop` (OpenAI's own meaning; the sequence rides along on the choice); a pause, or any other
 * end, gives what came as the answer: a plain stop. Chat has no "other" of its own.
 */
export function chatFinishReasonFor(finish: Finish | null): "stop" | "length" | "tool_calls" | "content_filter" {
  const reason = finish?.reason;
  switch (reason) {
    case undefined:
    case "stop":
    case "stop-sequence":
    case "pause":
    case "other":
      return "stop";
    case "length":
      return "length";
    case "tool-calls":
      return "tool_calls";
    case "filtered":
      return "content_filter";
    default: {
      const never: never = reason;
      return never;
    }
  }
}
