import type { Source } from "../../../core/stream-parts.ts";

/**
 * The Responses output items this gateway writes (openai-node `ResponseOutputMessage`,
 * `ResponseFunctionToolCall`, `ResponseCustomToolCall`, `ResponseReasoningItem`,
 * `ResponseFunctionWebSearch`), for whole bodies and streams alike.
 */
export type ItemStatus = "in_progress" | "completed" | "incomplete";

/** A `url_citation` annotation (web search citations); the only kind written here. */
export type Annotation = Record<string, unknown>;

/** A cited web page as a `url_citation` annotation spanning `start`..`end` of its output_text part. */
export function urlCitation(source: Source, start: number, end: number): Annotation {
  return { type: "url_citation", start_index: start, end_index: end, url: source.url, title: source.title };
}

export type MessagePart = { type: "output_text"; annotations: Annotation[]; logprobs: never[]; text: string } | { type: "refusal"; refusal: string };

export function outputTextPart(text: string): MessagePart {
  return { type: "output_text", annotations: [], logprobs: [], text };
}

export function refusalPart(refusal: string): MessagePart {
  return { type: "refusal", refusal };
}

export function messageItem(id: string, content: MessagePart[], status: ItemStatus): Record<string, unknown> {
  return { id, type: "message", status, role: "assistant", content };
}

/** `namespace`: the call is to a tool of a namespace tool (absent otherwise, as the API omits it). */
export function functionCallItem(id: string, callId: string, name: string, args: string, status: ItemStatus, namespace?: string): Record<string, unknown> {
  return { id, type: "function_call", status, arguments: args, call_id: callId, name, ...(namespace === undefined ? {} : { namespace }) };
}

/** A freeform (custom) tool call: `input` is the one string the tool takes. */
export function customToolCallItem(id: string, callId: string, name: string, input: string, status: ItemStatus, namespace?: string): Record<string, unknown> {
  return { id, type: "custom_tool_call", status, call_id: callId, name, ...(namespace === undefined ? {} : { namespace }), input };
}

export type WebSearchStatus = "in_progress" | "searching" | "completed" | "failed" | "incomplete";

/**
 * A web search the upstream ran (Anthropic's server tool): `action.query` is what it searched
 * for, `sources` the result URLs, given only when the request's include asked for them.
 */
export function webSearchCallItem(id: string, status: WebSearchStatus, query: string | null, sources: { type: "url"; url: string }[] | null): Record<string, unknown> {
  const action: Record<string, unknown> = { type: "search" };
  // `queries` is the field today; `query` (deprecated) is still what older readers take.
  if (query !== null) Object.assign(action, { query, queries: [query] });
  if (sources !== null) action.sources = sources;
  return { id, type: "web_search_call", status, action };
}

/** The Responses item id of an upstream's server tool call (`srvtoolu_...` -> `ws_srvtoolu_...`). */
export function webSearchItemId(upstreamId: string): string {
  return `ws_${upstreamId}`;
}

/** Kept for tests that still import it from here: the codec (core/opaque.ts) owns it. */
export { REDACTED_THINKING_PREFIX } from "../../../core/opaque.ts";

/**
 * Reasoning as a reasoning item: the (summarised) thinking text is the summary and the signature
 * travels in encrypted_content (core/opaque.ts: tagged by who made it), so the item sent back as
 * input becomes the same signed block for the same kind of upstream. A redacted block has no text.
 */
export function reasoningItem(id: string, summary: string | null, encrypted: string | null): Record<string, unknown> {
  const item: Record<string, unknown> = { id, type: "reasoning", summary: summary === null ? [] : [{ type: "summary_text", text: summary }] };
  if (encrypted !== null) item.encrypted_content = encrypted;
  return item;
}
