import type { Usage } from "@gateway/contracts";
import type { Finish, Opaque, Source } from "./stream-parts.ts";

/**
 * A whole (non-streamed) answer in neutral form: the closed form of the stream's parts, block by
 * block in order, plus finish and usage. Response readers (one per upstream shape) make it,
 * response writers (one per client shape) write it.
 */
export type AnswerBlock =
  /** `sources`: the web pages this text cites (it spans the whole block). */
  | { type: "text"; text: string; sources: Source[] }
  | { type: "refusal"; text: string }
  | { type: "reasoning"; text: string; signature: Opaque | null }
  | { type: "redacted-reasoning"; data: Opaque }
  /** `input`: the call's arguments as JSON text; `callId` null when the upstream gave none (the writer invents one in its shape's form). */
  | { type: "tool-call"; callId: string | null; name: string; input: string }
  /** A web search the upstream ran itself: `failed` when it answered an error. */
  | { type: "search"; id: string; query: string; sources: Source[]; failed: boolean };

export interface Answer {
  id: unknown;
  model: unknown;
  /** Unix seconds, when the upstream says (chat completions do). */
  created: number | null;
  blocks: AnswerBlock[];
  /** null when the upstream gave no reason the core knows. */
  finish: Finish | null;
  usage: Usage | null;
}
