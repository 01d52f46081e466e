import type { ChatFinishReason, ResponsesOutcome } from "../shared/stop-reasons.ts";

/** Chat Completions finish_reason -> the Responses status: length and content_filter are incomplete. */
export function responsesOutcomeFromChat(finish: ChatFinishReason | null): ResponsesOutcome {
  switch (finish) {
    case null:
    case "stop":
    case "tool_calls":
    case "function_call":
      return { status: "completed" };
    case "length":
      return { status: "incomplete", reason: "max_output_tokens" };
    case "content_filter":
      return { status: "incomplete", reason: "content_filter" };
    default: {
      const never: never = finish;
      return never;
    }
  }
}
