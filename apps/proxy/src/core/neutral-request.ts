import type { ModelCapabilities } from "@gateway/redis-store";
import type { DroppedParams } from "./drops.ts";
import type { Opaque } from "./stream-parts.ts";

/**
 * The neutral request vocabulary (shared/design/neutral-core.md section 3.1): what every shape's
 * request reader produces (`readRequest(body, context)`, `shapes/<shape>/reader/request.ts`) and
 * every upstream shape's writer consumes (`writeRequest(request, context)`,
 * `shapes/<shape>/writer/request.ts`). Each element keeps `path`, its JSON path in the client's
 * body, so a drop or a refusal names the client's own field.
 */
export interface Field<T> {
  value: T;
  path: string;
}

/** The tool choices every shape can express (`allowed` is refused where a writer has none). */
export type ToolChoice = { type: "auto" } | { type: "none" } | { type: "required" } | { type: "function"; name: string };

export type TextPart = { type: "text"; text: string; refusal?: true; cache?: true; signature?: Opaque; path: string };

export type Part =
  | TextPart
  /** `detail`: OpenAI's resize policy, when the client set one (other writers drop it, listed). */
  | { type: "file"; mediaType: string; data: { base64: string } | { url: string } | { fileId: string; origin: Opaque["origin"] }; detail?: string; path: string }
  | { type: "tool-call"; callId: string; name: string; /** JSON text */ input: string; signature?: Opaque; path: string }
  /**
   * `name`: the called tool's (Gemini matches a response by name; readers fill it from the call
   * with the same id, "" when none is known). `plain`: the client sent the content as one string.
   */
  | { type: "tool-result"; callId: string; name: string; content: Part[]; plain?: true; isError?: boolean; path: string }
  | { type: "reasoning"; text: string; signature?: Opaque; redacted?: Opaque; path: string };

export type Tool =
  | { type: "function"; name: string; description?: string; parameters: Record<string, unknown>; strict?: boolean; path: string }
  /** A Responses custom tool: freeform text input (core/custom-tools.ts carries it as one JSON string). */
  | { type: "freeform"; name: string; description?: string; path: string }
  /**
   * A tool the upstream runs itself. Web search's settings in neutral words: `max_uses` (a positive
   * whole number), `allowed_domains` (strings), `user_location` ({city, region, country, timezone}).
   */
  | { type: "hosted"; kind: "web_search" | (string & {}); raw: Record<string, unknown>; path: string };

export type Format = { type: "text" } | { type: "json" } | { type: "json_schema"; name?: string; description?: string; schema: Record<string, unknown>; strict?: boolean };

export type ReasoningEffort = "none" | "minimal" | "low" | "medium" | "high" | "xhigh" | "max";

export interface Turn {
  /** "system": said mid-conversation (or before the first turn, in shapes that say it as a message). */
  role: "user" | "assistant" | "system";
  parts: Part[];
  /** The client sent the content as one string (shapes that tell a string from parts keep the form). */
  plain?: true;
  /** A system turn the client called `developer` (OpenAI), kept where the target has the word. */
  developer?: true;
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
  instructions: TextPart[];
  /** True when the client sent its instructions as one string (not as parts). */
  instructionsPlain?: true;
  turns: Turn[];
  tools: Tool[];
  toolChoice?: Field<ToolChoice>;
  parallelToolCalls?: Field<boolean>;
  output: { bound?: Field<number>; format?: Field<Format>; stop?: Field<string[]>; choices?: Field<number>; logprobs?: Field<number>; verbosity?: Field<string> };
  reasoning?: { effort?: ReasoningEffort; budgetTokens?: number; visible?: boolean; path: string };
  sampling: {
    temperature?: Field<number>;
    topP?: Field<number>;
    topK?: Field<number>;
    seed?: Field<number>;
    presencePenalty?: Field<number>;
    frequencyPenalty?: Field<number>;
  };
  /** The end user's id (OpenAI `user`, Anthropic `metadata.user_id`). */
  user?: Field<string>;
  /** OpenAI's second end-user id, where the target has one too (a target with one id carries `user`). */
  safetyIdentifier?: Field<string>;
  /** In OpenAI's words: `auto`, `default`, `flex`, `priority`. */
  serviceTier?: Field<string>;
  /** OpenAI's prompt-cache routing hints, where the target takes them. */
  promptCache?: { key?: Field<unknown>; retention?: Field<unknown> };
  /**
   * Fields with no neutral word the target still carries. Empty today: every reader settles such a
   * field while reading (`dropOrRefuse`, in the client's order), so none rides along undecided.
   */
  passengers: Passenger[];
  /**
   * Where the Chat Completions writer puts the output bound: right after `messages` (as the
   * Messages -> chat mapping always did) or after `stream` (as Responses -> chat did). JSON key
   * order changes nothing upstream; it is kept so the recorded goldens hold byte for byte until
   * they are re-recorded through the core (migration step 8), then this goes.
   */
  layout?: "bound-after-stream";
}

/**
 * The features a writer may not take, by one name each. A writer's `accepts` table gives, per
 * feature it does not take, the verdict and the sentence the client reads; `dropOrRefuse`
 * (core/drop-or-refuse.ts) applies it, the one place the decision is made.
 */
export type Feature =
  // Answers the target cannot give: refused where it has none.
  | "choices" | "logprobs" | "audio-output" | "moderation" | "legacy-functions" | "json-object-format" | "forced-web-search" | "forced-only-web-search"
  // Sampling and output tuning.
  | "seed" | "presence-penalty" | "frequency-penalty" | "top-k" | "temperature-above-1" | "logit-bias" | "prediction" | "verbosity"
  // Bookkeeping, caching, service.
  | "store" | "metadata" | "service-tier" | "foreign-service-tier" | "second-user-id" | "long-user-id" | "prompt-cache-hint" | "prompt-cache-options"
  | "context-management" | "inference-geo" | "speed" | "output-config"
  // Inside the conversation and the tools.
  | "participant-name" | "image-detail" | "cache-control" | "text-citations" | "foreign-reasoning" | "unsigned-reasoning"
  | "earlier-web-search" | "web-search-tool" | "custom-tool-grammar" | "reasoning-summary" | "thinking-type"
  | "eager-input-streaming" | "input-examples" | "defer-loading" | "allowed-callers"
  | "search-context-size" | "search-cached-only" | "search-max-uses" | "earlier-reasoning";

export interface Verdict {
  verdict: "drop" | "refuse";
  why: string;
}

/** What an upstream shape's request writer takes: what it does not is a drop or a refusal. */
export interface RequestAccepts {
  /** How a refusal of an unknown field names the target: "an Anthropic-shape upstream (Messages)". */
  upstream: string;
  /** The target's name in "has no X equivalent": "Anthropic", "OpenAI Chat Completions". */
  name: string;
  /** Whose signed reasoning it verifies (the upstream kind): reasoning signed by another origin is "foreign-reasoning". */
  origin?: Opaque["origin"];
  /** The longest end-user id it takes (OpenAI's `user`: 64); absent: any. */
  maxUserLength?: number;
  /** Features it does not take as they are (absent: taken). */
  refuses: Partial<Record<Feature, Verdict>>;
  /** It runs a hosted web search tool itself (Anthropic's server tool). */
  webSearch: boolean;
  /** It returns signed reasoning a client can echo back (Responses `include: reasoning.encrypted_content` is met). */
  encryptedReasoning: boolean;
}

/** What a request reader gets besides the body. */
export interface RequestReadContext {
  /** The one drops ledger of this target (`x-gateway-dropped-params`); it refuses instead under strict_params. */
  drops: DroppedParams;
  /** The target writer's table: what it does not take is dropped or refused while reading, in reading order. */
  accepts: RequestAccepts;
  /** The request's one output bound (core/output-bound.ts, computed once in the route); undefined before that. */
  outputBound: number | undefined;
  /** The target model's capabilities, when the caller knows them (contract section 15). */
  capabilities?: ModelCapabilities;
}

/** What a request writer gets besides the neutral request. */
export interface RequestWriteContext {
  drops: DroppedParams;
  /** Sent as the upstream's one output field (`max_tokens`, `max_completion_tokens`, `maxOutputTokens`). */
  outputBound: number | undefined;
  capabilities?: ModelCapabilities;
}

export type RequestReader = (body: Record<string, unknown>, context: RequestReadContext) => NeutralRequest;
export type RequestWriter = (request: NeutralRequest, context: RequestWriteContext) => Record<string, unknown>;

/** A request with nothing in it yet: readers fill it in. */
export function emptyRequest(model: unknown, stream: boolean): NeutralRequest {
  return { model: String(model), stream, streamUsage: false, instructions: [], turns: [], tools: [], output: {}, sampling: {}, passengers: [] };
}

/** A web search's approximate location (city, region, country, timezone) in neutral words; none when it names nothing. */
export function approximateLocation(location: Record<string, unknown> | null): Record<string, unknown> | undefined {
  if (!location) return undefined;
  const approximate: Record<string, unknown> = {};
  for (const key of ["city", "region", "country", "timezone"] as const) if (typeof location[key] === "string") approximate[key] = location[key];
  return Object.keys(approximate).length > 0 ? approximate : undefined;
}
