import { BufferedWriter } from "../../../core/pipeline.ts";
import type { Finish, Opaque, Source, StreamWriter } from "../../../core/stream-parts.ts";
import { responsesOutcome } from "../finish.ts";
import { CalledTools } from "../namespace-tools.ts";
import { wantsWebSearchSources } from "../web-search.ts";
import { urlCitation } from "./output-items.ts";
import { ResponsesStreamEvents } from "./stream-events.ts";

/**
 * Neutral parts -> a Responses event stream, whichever shape the upstream speaks. Text fills a
 * message item (a refusal its own part), reasoning a reasoning item (a signature or redacted data
 * as its encrypted content), each tool call a function_call item, or a custom_tool_call for the
 * request's custom tools (namespace tools answered with their namespace), a web search a
 * web_search_call item; a text part's cited sources become url_citation annotations spanning its
 * text when it ends. The finish and usage are kept for the terminal event, written at the end.
 */
export class ResponsesStreamWriter extends BufferedWriter implements StreamWriter {
  private readonly events: ResponsesStreamEvents;
  private readonly tools: CalledTools;
  private readonly withSources: boolean;
  /** The open text part: where its text begins in the output_text part, and the sources it cites. */
  private text: { id: string; refusal: boolean; start: number; sources: Source[] } | null = null;
  private finished: Finish | null = null;

  constructor(request: Record<string, unknown>) {
    super();
    this.events = new ResponsesStreamEvents(request);
    this.tools = new CalledTools(request);
    this.withSources = wantsWebSearchSources(request);
  }

  get emitted(): number {
    return this.events.emitted;
  }

  start(meta: { id?: unknown; model?: unknown }): void {
    this.out += this.events.start(meta.model ?? null);
  }

  textStart(id: string, refusal = false): void {
    this.text = { id, refusal, start: refusal ? 0 : this.events.textOffset(), sources: [] };
  }

  textDelta(id: string, delta: string): void {
    this.out += this.text?.id === id && this.text.refusal ? this.events.refusal(delta) : this.events.text(delta);
  }

  textEnd(id: string): void {
    const text = this.text;
    if (text?.id !== id) return;
    this.text = null;
    // Cited sources cover the part's text, whose end is known only now.
    const end = this.events.textOffset();
    for (const source of text.sources) this.out += this.events.annotation(urlCitation(source, text.start, end));
  }

  source(textId: string, source: Source): void {
    if (this.text?.id === textId) this.text.sources.push(source);
  }

  reasoningStart(_id: string, redacted?: Opaque): void {
    this.out += redacted ? this.events.redactedReasoning(redacted) : this.events.startReasoning();
  }

  reasoningDelta(_id: string, delta: string): void {
    this.out += this.events.reasoning(delta);
  }

  reasoningSignature(_id: string, signature: Opaque): void {
    this.out += this.events.reasoningSignature(signature);
  }

  reasoningEnd(): void {}

  toolStart(callId: string, name: string): void {
    const called = this.tools.resolve(name);
    this.out += called.custom ? this.events.customToolCall(callId, called.name, called.namespace) : this.events.functionCall(callId, called.name, called.namespace);
  }

  toolDelta(_callId: string, json: string): void {
    this.out += this.events.functionArguments(json);
  }

  toolEnd(): void {}

  searchStart(id: string): void {
    this.out += this.events.webSearchCall(id);
  }

  searchQuery(_id: string, query: string): void {
    this.out += this.events.webSearchSearching(query);
  }

  searchResult(_id: string, sources: Source[] | null): void {
    const listed = this.withSources ? (sources ?? []).map((source) => ({ type: "url" as const, url: source.url })) : null;
    this.out += this.events.webSearchResult(listed, sources === null);
  }

  finish(end: Finish): void {
    this.finished = end;
  }

  end(): void {
    this.out += this.events.finish(responsesOutcome(this.finished), this.lastUsage);
  }
}
