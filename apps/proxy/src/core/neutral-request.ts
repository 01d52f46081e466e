import type { Opaque } from "./stream-parts.ts";

/**
 * The neutral request vocabulary (shared/design/neutral-core.md section 3.1): what every shape's
 * request reader produces and every writer consumes. Each element keeps `path`, its JSON path in
 * the client's body, so a drop or a refusal names the client's own field. Types only for now:
 * request readers and writers arrive direction by direction (migration step 6).
 */
export interface Field<T> {
  value: T;
  path: string;
}

/** The tool choices every shape can express (`allowed` is refused where a writer has none). */
export type ToolChoice = { type: "auto" } | { type: "none" } | { type: "required" } | { type: "function"; name: string };

export type Part =
  | { type: "text"; text: string; refusal?: true; cache?: true; signature?: Opaque; path: string }
  | { type: "file"; mediaType: string; data: { base64: string } | { url: string } | { fileId: string; origin: Opaque["origin"] }; path: string }
  | { type: "tool-call"; callId: string; name: string; /** JSON text */ input: string; signature?: Opaque; path: string }
  | { type: "tool-result"; callId: string; name: string; content: Part[]; isError?: boolean; path: string }
  | { type: "reasoning"; text: string; signature?: Opaque; redacted?: Opaque; path: string };

export type Tool =
  | { type: "function"; name: string; description?: string; parameters: Record<string, unknown>; path: string }
  /** A Responses custom tool: freeform text input (core/custom-tools.ts carries it as one JSON string). */
  | { type: "freeform"; name: string; description?: string; path: string }
  | { type: "hosted"; kind: "web_search" | (string & {}); raw: Record<string, unknown>; path: string };

export type Format = { type: "text" } | { type: "json" } | { type: "json_schema"; name?: string; schema: Record<string, unknown>; strict?: boolean };

export type ReasoningEffort = "none" | "minimal" | "low" | "medium" | "high" | "xhigh" | "max";

export interface Turn {
  /** "system": said mid-conversation. */
  role: "user" | "assistant" | "system";
  parts: Part[];
  path: string;
}

/** A field with no neutral word, classed once: its fate is decided by the drop-or-refuse rule. */
export interface Passenger {
  path: string;
  kind: "tunes" | "bookkeeping" | "answer";
  why: string;
}

export interface NeutralRequest {
  model: string;
  stream: boolean;
  /** The client asked to see usage in its stream. */
  streamUsage: boolean;
  /** System text before the first turn, whatever the shape calls it. */
  instructions: Extract<Part, { type: "text" }>[];
  turns: Turn[];
  tools: Tool[];
  toolChoice?: Field<ToolChoice>;
  parallelToolCalls?: Field<boolean>;
  output: { bound?: Field<number>; format?: Field<Format>; stop?: Field<string[]>; choices?: Field<number>; logprobs?: Field<number> };
  reasoning?: { effort?: ReasoningEffort; budgetTokens?: number; visible?: boolean; path: string };
  sampling: {
    temperature?: Field<number>;
    topP?: Field<number>;
    topK?: Field<number>;
    seed?: Field<number>;
    presencePenalty?: Field<number>;
    frequencyPenalty?: Field<number>;
  };
  user?: Field<string>;
  serviceTier?: Field<string>;
  passengers: Passenger[];
}
