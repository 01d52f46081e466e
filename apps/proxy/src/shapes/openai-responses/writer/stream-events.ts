import type { Usage } from "@gateway/contracts";
import { sseFrame } from "../../../core/sse.ts";
import { itemId, nowSeconds } from "../../../core/ids.ts";
import type { ResponsesOutcome } from "../finish.ts";
import { CustomInputStream } from "../../../core/custom-tools.ts";
import { encodeOpaque } from "../../../core/opaque.ts";
import type { Opaque } from "../../../core/stream-parts.ts";
import {
  customToolCallItem,
  functionCallItem,
  messageItem,
  outputTextPart,
  reasoningItem,
  refusalPart,
  webSearchCallItem,
  webSearchItemId,
  type Annotation,
  type ItemStatus,
  type MessagePart,
  type WebSearchStatus,
} from "./output-items.ts";
import { responseObject } from "./response-object.ts";

type OpenItem =
  | { kind: "message"; id: string; outputIndex: number; parts: MessagePart[]; partOpen: boolean }
  | { kind: "function_call"; id: string; outputIndex: number; callId: string; name: string; namespace?: string; args: string }
  /** A custom tool call: the other side's JSON arguments, read as they come into the one input string. */
  | { kind: "custom_tool_call"; id: string; outputIndex: number; callId: string; name: string; namespace?: string; input: CustomInputStream }
  | { kind: "reasoning"; id: string; outputIndex: number; summary: string | null; encrypted: string | null }
  /** A web search the upstream runs itself: the query once known, the sources when asked for. */
  | { kind: "web_search"; id: string; outputIndex: number; query: string | null; sources: { type: "url"; url: string }[] | null; failed: boolean };

/**
 * Writes a Responses event stream from neutral calls (text, refusal, reasoning, function calls),
 * whichever shape the upstream speaks. Every event carries the next `sequence_number`; one item is
 * open at a time, in output order, and the last one is closed only at the end, once the outcome
 * (completed or incomplete) is known. The terminal event carries the whole response.
 */
export class ResponsesStreamEvents {
  /** Events written so far, which is also the next sequence number. */
  emitted = 0;
  private readonly request: Record<string, unknown>;
  private readonly id = itemId("resp_");
  private readonly createdAt = nowSeconds();
  private model: unknown = null;
  private readonly output: Record<string, unknown>[] = [];
  private current: OpenItem | null = null;
  private started = false;
  private finished = false;

  constructor(request: Record<string, unknown>) {
    this.request = request;
  }

  start(model: unknown): string {
    if (this.started) return "";
    this.started = true;
    this.model = model;
    const response = responseObject(this.request, { id: this.id, createdAt: this.createdAt, model, outcome: null, output: [], usage: null });
    return this.emit("response.created", { response }) + this.emit("response.in_progress", { response });
  }

  text(delta: string): string {
    const out = this.openPart("output_text");
    const item = this.current as Extract<OpenItem, { kind: "message" }>;
    const part = item.parts.at(-1) as Extract<MessagePart, { type: "output_text" }>;
    part.text += delta;
    return out + this.emit("response.output_text.delta", { ...this.at(item), content_index: item.parts.length - 1, delta, logprobs: [] });
  }

  refusal(delta: string): string {
    const out = this.openPart("refusal");
    const item = this.current as Extract<OpenItem, { kind: "message" }>;
    const part = item.parts.at(-1) as Extract<MessagePart, { type: "refusal" }>;
    part.refusal += delta;
    return out + this.emit("response.refusal.delta", { ...this.at(item), content_index: item.parts.length - 1, delta });
  }

  /** Thinking text, as the reasoning item's summary. */
  reasoning(delta: string): string {
    let out = "";
    if (this.current?.kind !== "reasoning") out += this.openReasoning();
    const item = this.current as Extract<OpenItem, { kind: "reasoning" }>;
    if (item.summary === null) {
      item.summary = "";
      out += this.emit("response.reasoning_summary_part.added", { ...this.at(item), summary_index: 0, part: { type: "summary_text", text: "" } });
    }
    item.summary += delta;
    return out + this.emit("response.reasoning_summary_text.delta", { ...this.at(item), summary_index: 0, delta });
  }

  /** The reasoning's signature, in encrypted_content tagged by who made it: it goes back to that kind of upstream only. */
  reasoningSignature(signature: Opaque): string {
    const out = this.current?.kind === "reasoning" ? "" : this.openReasoning();
    (this.current as Extract<OpenItem, { kind: "reasoning" }>).encrypted = encodeOpaque(signature);
    return out;
  }

  /** A redacted block: its data in encrypted_content, marked redacted (the one field holds both). */
  redactedReasoning(data: Opaque): string {
    const out = this.openReasoning();
    (this.current as Extract<OpenItem, { kind: "reasoning" }>).encrypted = encodeOpaque(data, true);
    return out + this.closeItem("completed");
  }

  /** A function call; `namespace` when the tool is one of a namespace tool's (`name` is then its own name). */
  functionCall(callId: string, name: string, namespace?: string): string {
    const out = this.closeItem("completed");
    const item: OpenItem = { kind: "function_call", id: `fc_${callId}`, outputIndex: this.output.length, callId, name, namespace, args: "" };
    this.current = item;
    return out + this.emit("response.output_item.added", { output_index: item.outputIndex, item: functionCallItem(item.id, callId, name, "", "in_progress", namespace) });
  }

  functionArguments(delta: string): string {
    const item = this.current;
    if (delta.length === 0) return "";
    if (item?.kind === "custom_tool_call") {
      // The input is a string inside the JSON arguments: its text is handed on as it is decoded.
      const text = item.input.push(delta);
      return text.length > 0 ? this.emit("response.custom_tool_call_input.delta", { ...this.at(item), delta: text }) : "";
    }
    if (item?.kind !== "function_call") return "";
    item.args += delta;
    return this.emit("response.function_call_arguments.delta", { ...this.at(item), delta });
  }

  /**
   * A call to one of the request's custom (freeform) tools, which the other side called as a JSON
   * tool with one string argument; its argument pieces go to `functionArguments` too.
   */
  customToolCall(callId: string, name: string, namespace?: string): string {
    const out = this.closeItem("completed");
    const item: OpenItem = { kind: "custom_tool_call", id: `ctc_${callId}`, outputIndex: this.output.length, callId, name, namespace, input: new CustomInputStream() };
    this.current = item;
    return out + this.emit("response.output_item.added", { output_index: item.outputIndex, item: customToolCallItem(item.id, callId, name, "", "in_progress", namespace) });
  }

  /** A web search the upstream started (Anthropic's server_tool_use): the item is in progress. */
  webSearchCall(upstreamId: string): string {
    const out = this.closeItem("completed");
    const item: OpenItem = { kind: "web_search", id: webSearchItemId(upstreamId), outputIndex: this.output.length, query: null, sources: null, failed: false };
    this.current = item;
    return (
      out +
      this.emit("response.output_item.added", { output_index: item.outputIndex, item: webSearchCallItem(item.id, "in_progress", null, null) }) +
      this.emit("response.web_search_call.in_progress", this.at(item))
    );
  }

  /** The search's query is known (its input streamed whole): it is searching. */
  webSearchSearching(query: string): string {
    const item = this.current;
    if (item?.kind !== "web_search") return "";
    item.query = query;
    return this.emit("response.web_search_call.searching", this.at(item));
  }

  /**
   * The search's results came (Anthropic's web_search_tool_result): completed, or failed when the
   * upstream answered an error; `sources` (null unless the request asked for them) go into the action.
   */
  webSearchResult(sources: { type: "url"; url: string }[] | null, failed: boolean): string {
    const item = this.current;
    if (item?.kind !== "web_search") return "";
    item.sources = sources;
    item.failed = failed;
    const out = failed ? "" : this.emit("response.web_search_call.completed", this.at(item));
    return out + this.closeItem("completed");
  }

  /** Where the next text would start in the open output_text part (0 when a new part will open). */
  textOffset(): number {
    const item = this.current;
    if (item?.kind !== "message" || !item.partOpen) return 0;
    const part = item.parts.at(-1);
    return part?.type === "output_text" ? part.text.length : 0;
  }

  /** An annotation (a url_citation) on the open output_text part; nothing when no text part is open. */
  annotation(annotation: Annotation): string {
    const item = this.current;
    const part = item?.kind === "message" && item.partOpen ? item.parts.at(-1) : undefined;
    if (item?.kind !== "message" || part?.type !== "output_text") return "";
    part.annotations.push(annotation);
    return this.emit("response.output_text.annotation.added", {
      ...this.at(item),
      content_index: item.parts.length - 1,
      annotation_index: part.annotations.length - 1,
      annotation,
    });
  }

  /** The terminal event: the last item closed with the outcome, then completed or incomplete. */
  finish(outcome: ResponsesOutcome, usage: Usage | null): string {
    if (this.finished) return "";
    const out = this.start(this.model) + this.closeItem(outcome.status === "incomplete" ? "incomplete" : "completed");
    this.finished = true;
    const response = responseObject(this.request, { id: this.id, createdAt: this.createdAt, model: this.model, outcome, output: this.output, usage });
    return out + this.emit(`response.${outcome.status}`, { response });
  }

  /** A new reasoning item (one per thinking block, even when blocks follow each other). */
  startReasoning(): string {
    return this.openReasoning();
  }

  private openReasoning(): string {
    const out = this.closeItem("completed");
    const item: OpenItem = { kind: "reasoning", id: itemId("rs_"), outputIndex: this.output.length, summary: null, encrypted: null };
    this.current = item;
    return out + this.emit("response.output_item.added", { output_index: item.outputIndex, item: reasoningItem(item.id, null, null) });
  }

  private openPart(type: MessagePart["type"]): string {
    let out = "";
    if (this.current?.kind !== "message") {
      out += this.closeItem("completed");
      this.current = { kind: "message", id: itemId("msg_"), outputIndex: this.output.length, parts: [], partOpen: false };
      out += this.emit("response.output_item.added", { output_index: this.current.outputIndex, item: messageItem(this.current.id, [], "in_progress") });
    }
    const item = this.current;
    if (item.partOpen && item.parts.at(-1)?.type === type) return out;
    out += this.closePart();
    const part = type === "output_text" ? outputTextPart("") : refusalPart("");
    item.parts.push(part);
    item.partOpen = true;
    return out + this.emit("response.content_part.added", { ...this.at(item), content_index: item.parts.length - 1, part: { ...part } });
  }

  private closePart(): string {
    const item = this.current;
    if (item?.kind !== "message" || !item.partOpen) return "";
    item.partOpen = false;
    const contentIndex = item.parts.length - 1;
    const part = item.parts[contentIndex]!;
    const done =
      part.type === "output_text"
        ? this.emit("response.output_text.done", { ...this.at(item), content_index: contentIndex, text: part.text, logprobs: [] })
        : this.emit("response.refusal.done", { ...this.at(item), content_index: contentIndex, refusal: part.refusal });
    return done + this.emit("response.content_part.done", { ...this.at(item), content_index: contentIndex, part: { ...part } });
  }

  private closeItem(status: ItemStatus): string {
    const item = this.current;
    if (!item) return "";
    let out = "";
    let final: Record<string, unknown>;
    switch (item.kind) {
      case "message":
        out += this.closePart();
        final = messageItem(item.id, item.parts, status);
        break;
      case "function_call":
        out += this.emit("response.function_call_arguments.done", { ...this.at(item), name: item.name, arguments: item.args });
        final = functionCallItem(item.id, item.callId, item.name, item.args, status, item.namespace);
        break;
      case "custom_tool_call": {
        const { rest, input } = item.input.finish();
        if (rest.length > 0) out += this.emit("response.custom_tool_call_input.delta", { ...this.at(item), delta: rest });
        out += this.emit("response.custom_tool_call_input.done", { ...this.at(item), input });
        final = customToolCallItem(item.id, item.callId, item.name, input, status, item.namespace);
        break;
      }
      case "reasoning":
        if (item.summary !== null) {
          out += this.emit("response.reasoning_summary_text.done", { ...this.at(item), summary_index: 0, text: item.summary });
          out += this.emit("response.reasoning_summary_part.done", { ...this.at(item), summary_index: 0, part: { type: "summary_text", text: item.summary } });
        }
        final = reasoningItem(item.id, item.summary, item.encrypted);
        break;
      case "web_search": {
        const searchStatus: WebSearchStatus = item.failed ? "failed" : status;
        final = webSearchCallItem(item.id, searchStatus, item.query ?? "", item.sources);
        break;
      }
      default: {
        const never: never = item;
        return never;
      }
    }
    this.current = null;
    this.output.push(final);
    return out + this.emit("response.output_item.done", { output_index: item.outputIndex, item: final });
  }

  private at(item: OpenItem): { item_id: string; output_index: number } {
    return { item_id: item.id, output_index: item.outputIndex };
  }

  private emit(type: string, fields: Record<string, unknown>): string {
    const sequenceNumber = this.emitted;
    this.emitted += 1;
    return sseFrame(JSON.stringify({ type, sequence_number: sequenceNumber, ...fields }), type);
  }
}
