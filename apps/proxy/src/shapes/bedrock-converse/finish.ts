import type { Finish } from "../../core/stream-parts.ts";

/**
 * A Converse `stopReason` -> the neutral finish, the raw value kept (shared/notes/wire-gemini-
 * bedrock-vertex-azure.md section 2.1): guardrail and content filter are `filtered`; the malformed
 * and context-window reasons (and anything newer) are `other`. Null when none was given.
 */
export function finishFromConverse(raw: unknown): Finish | null {
  if (typeof raw !== "string" || raw.length === 0) return null;
  switch (raw) {
    case "end_turn":
      return { reason: "stop", raw };
    case "tool_use":
      return { reason: "tool-calls", raw };
    case "max_tokens":
      return { reason: "length", raw };
    case "stop_sequence":
      return { reason: "stop-sequence", raw };
    case "guardrail_intervened":
    case "content_filtered":
      return { reason: "filtered", raw };
    default:
      return { reason: "other", raw };
  }
}
