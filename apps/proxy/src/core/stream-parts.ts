import type { Usage } from "@gateway/contracts";

/** The upstream kind that made an opaque value (a thinking signature, encrypted reasoning): only a writer for that kind writes it. */
export type Origin = "anthropic" | "openai" | "gemini";

/** A value the gateway carries without reading it, tagged by the upstream kind that made it. */
export interface Opaque {
  origin: Origin;
  value: string;
}

/**
 * Why an answer ended, in one vocabulary for every shape. `raw` keeps the upstream's own value
 * (`pause_turn`, `content_filter`): a writer that needs it has it, and none invents one it lacks.
 */
export type FinishReason = "stop" | "stop-sequence" | "length" | "tool-calls" | "filtered" | "pause" | "other";

export interface Finish {
  reason: FinishReason;
  raw: string;
  /** The stop sequence that matched, when the upstream says which (Anthropic does, OpenAI does not). */
  stopSequence?: unknown;
}

/** A web page an answer cites (Anthropic web search citations, chat `url_citation` annotations). */
export interface Source {
  url: string;
  title: string;
}

/**
 * The neutral stream: a reader (one per upstream shape) calls these as it reads the upstream's
 * events; a writer (one per client shape) frames them. One method per part, no object per event
 * (the hot path). Ids tie a delta to its start; a writer may ignore the boundaries its shape has
 * no frame for. Usage is the gateway's billing `Usage` (contract), as reported so far; `finish`
 * comes when the upstream says why it stopped, `end` when its stream ended whole.
 */
export interface PartSink {
  /** The first event: the upstream's message id and model, when it names them. */
  start(meta: { id?: unknown; model?: unknown }): void;
  textStart(id: string, refusal?: boolean): void;
  textDelta(id: string, delta: string): void;
  textEnd(id: string): void;
  /** A reasoning block; `redacted` when its content is opaque (Anthropic redacted_thinking). */
  reasoningStart(id: string, redacted?: Opaque): void;
  reasoningDelta(id: string, delta: string): void;
  reasoningSignature(id: string, signature: Opaque): void;
  reasoningEnd(id: string): void;
  toolStart(callId: string, name: string): void;
  /** A piece of the call's JSON arguments (never empty; a call with none gets "{}" before its end). */
  toolDelta(callId: string, json: string): void;
  toolEnd(callId: string): void;
  /** A web search the upstream runs itself (Anthropic's server tool): started, its query, its results. */
  searchStart(id: string): void;
  searchQuery(id: string, query: string): void;
  /** The pages found, or null when the search failed. */
  searchResult(id: string, sources: Source[] | null): void;
  /** A source cited by the open text part (it spans that part's text once the part ends). */
  source(textId: string, source: Source): void;
  /** Usage reported so far (cumulative: the last one wins). */
  usage(usage: Usage): void;
  finish(end: Finish): void;
  /** The upstream stream ended whole: whatever terminal frames are still owed. */
  end(): void;
}

/**
 * A writer as the pair facades and the relay use it: parts in, the client's SSE text out.
 * `take()` hands over what the last parts wrote; `emitted` counts client events so far.
 */
export interface StreamWriter extends PartSink {
  take(): string;
  readonly emitted: number;
}

/** A reader of one upstream shape's stream events: each event becomes parts on its sink. */
export interface StreamReader {
  push(data: string): void;
  /** The upstream stream ended (whole or not): the reader says what it still owes, then `end`. */
  end(): void;
}
