import type { Finish } from "../../core/stream-parts.ts";

/** Gemini's finish reasons that mean the answer was withheld or cut by a filter. */
const FILTERED = new Set(["SAFETY", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "RECITATION", "IMAGE_SAFETY", "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION"]);

/**
 * A Gemini `finishReason` (or a prompt's `blockReason`) -> the neutral finish, the raw value kept.
 * Gemini has no tool-calls reason: a function call ends with STOP, so `sawToolCall` decides.
 * Anything else Google defines (MALFORMED_FUNCTION_CALL, LANGUAGE, OTHER, ...) is `other`; null
 * when no reason was given.
 */
export function finishFromGemini(raw: unknown, sawToolCall: boolean): Finish | null {
  if (typeof raw !== "string" || raw.length === 0) return null;
  if (raw === "STOP") return { reason: sawToolCall ? "tool-calls" : "stop", raw };
  if (raw === "MAX_TOKENS") return { reason: "length", raw };
  if (FILTERED.has(raw)) return { reason: "filtered", raw };
  return { reason: "other", raw };
}

/** A prompt refused before any answer (`promptFeedback.blockReason`, no candidates): filtered, its reason kept. */
export function finishFromBlockReason(raw: unknown): Finish | null {
  return typeof raw === "string" && raw.length > 0 ? { reason: "filtered", raw } : null;
}

/**
 * A neutral finish (none seen: a plain stop) -> Gemini's `finishReason`: Google's own words, never
 * an invented one (a tool call, a stop sequence and a pause end with STOP).
 */
export function geminiFinishReasonFor(finish: Finish | null): "STOP" | "MAX_TOKENS" | "SAFETY" | "OTHER" {
  const reason = finish?.reason;
  switch (reason) {
    case undefined:
    case "stop":
    case "stop-sequence":
    case "tool-calls":
    case "pause":
      return "STOP";
    case "length":
      return "MAX_TOKENS";
    case "filtered":
      return "SAFETY";
    case "other":
      return "OTHER";
    default: {
      const never: never = reason;
      return never;
    }
  }
}
