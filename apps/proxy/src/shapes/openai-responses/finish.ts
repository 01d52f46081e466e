import type { Finish } from "../../core/stream-parts.ts";

/** How a Responses answer ended: `incomplete` carries the reason. */
export type ResponsesOutcome = { status: "completed" } | { status: "incomplete"; reason: "max_output_tokens" | "content_filter" };

/** A neutral finish (none seen: a plain stop) -> the Responses status: length and filtered are incomplete. */
export function responsesOutcome(finish: Finish | null): ResponsesOutcome {
  const reason = finish?.reason;
  switch (reason) {
    case undefined:
    case "stop":
    case "stop-sequence":
    case "tool-calls":
    case "pause":
    case "other":
      return { status: "completed" };
    case "length":
      return { status: "incomplete", reason: "max_output_tokens" };
    case "filtered":
      return { status: "incomplete", reason: "content_filter" };
    default: {
      const never: never = reason;
      return never;
    }
  }
}
