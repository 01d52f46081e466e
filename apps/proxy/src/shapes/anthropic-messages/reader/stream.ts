import type { Usage } from "@gateway/contracts";
import { list } from "../../../core/fields.ts";
import type { PartSink, StreamReader } from "../../../core/stream-parts.ts";
import { asRecord, tryJson } from "../../../core/request-fields.ts";
import { finishFromAnthropic } from "../finish.ts";
import { anthropicUsage } from "../usage.ts";
import { citationSource, searchSources, webSearchQuery } from "../web-search.ts";

/** What this reader remembers of a content block, by its index. */
type Block =
  | { kind: "text"; id: string }
  /** `withoutInput`: no input streamed yet. */
  | { kind: "tool"; id: string; withoutInput: boolean }
  | { kind: "reasoning"; id: string }
  /** A web search the upstream runs: its input (the query) is read whole before it is said. */
  | { kind: "search"; id: string; input: string }
  | { kind: "other" };

const OTHER: Block = { kind: "other" };

/**
 * Anthropic stream events -> neutral parts, the one place an Anthropic stream is read
 * (platform.claude.com/docs/en/build-with-claude/streaming): message_start starts the answer with
 * the input usage; each content block (by its index) is a text, reasoning (thinking, or
 * redacted_thinking with its opaque data), tool call or web search part, closed at its
 * content_block_stop; a tool without input streams no JSON at all, so its arguments are "{}" (as
 * OpenAI sends); message_delta gives the cumulative usage and the finish; message_stop the end.
 */
export class AnthropicStreamReader implements StreamReader {
  private readonly sink: PartSink;
  private readonly blocks = new Map<number, Block>();
  private usage: Usage | null = null;

  constructor(sink: PartSink) {
    this.sink = sink;
  }

  push(data: string): void {
    const event = asRecord(tryJson(data));
    if (!event) return;
    switch (event.type) {
      case "message_start": {
        const message = asRecord(event.message);
        this.sink.start({ id: message?.id, model: message?.model ?? null });
        this.addUsage(message?.usage);
        return;
      }
      case "content_block_start":
        return this.startBlock(Number(event.index), asRecord(event.content_block) ?? {});
      case "content_block_delta":
        return this.delta(this.blocks.get(Number(event.index)), asRecord(event.delta) ?? {});
      case "content_block_stop":
        return this.stopBlock(this.blocks.get(Number(event.index)));
      case "message_delta": {
        const delta = asRecord(event.delta);
        this.addUsage(event.usage);
        this.sink.finish(finishFromAnthropic(delta?.stop_reason, delta?.stop_sequence ?? null));
        return;
      }
      case "message_stop":
        return this.sink.end();
      default:
        return;
    }
  }

  end(): void {
    this.sink.end();
  }

  /** Anthropic usage is cumulative: each report completes the last. */
  private addUsage(value: unknown): void {
    const usage = anthropicUsage(value, this.usage);
    if (usage === null || usage === this.usage) return;
    this.usage = usage;
    this.sink.usage(usage);
  }

  private startBlock(index: number, block: Record<string, unknown>): void {
    const id = String(index);
    switch (block.type) {
      case "text": {
        this.blocks.set(index, { kind: "text", id });
        this.sink.textStart(id);
        for (const citation of list(block.citations)) this.cite(id, citation);
        if (typeof block.text === "string" && block.text.length > 0) this.sink.textDelta(id, block.text);
        return;
      }
      case "tool_use": {
        const callId = String(block.id);
        this.blocks.set(index, { kind: "tool", id: callId, withoutInput: true });
        return this.sink.toolStart(callId, String(block.name));
      }
      case "server_tool_use": {
        // Only web search is ever asked for (the request writers refuse other server tools).
        const searchId = String(block.id);
        this.blocks.set(index, { kind: "search", id: searchId, input: "" });
        return this.sink.searchStart(searchId);
      }
      case "web_search_tool_result":
        this.blocks.set(index, OTHER);
        return this.sink.searchResult(String(block.tool_use_id), searchSources(block.content));
      case "thinking":
        this.blocks.set(index, { kind: "reasoning", id });
        this.sink.reasoningStart(id);
        if (typeof block.thinking === "string" && block.thinking.length > 0) this.sink.reasoningDelta(id, block.thinking);
        if (typeof block.signature === "string" && block.signature.length > 0) this.sink.reasoningSignature(id, { origin: "anthropic", value: block.signature });
        return;
      case "redacted_thinking":
        this.blocks.set(index, { kind: "reasoning", id });
        return this.sink.reasoningStart(id, { origin: "anthropic", value: String(block.data) });
      default:
        this.blocks.set(index, OTHER);
        return;
    }
  }

  private delta(block: Block | undefined, delta: Record<string, unknown>): void {
    switch (block?.kind) {
      case "text":
        if (delta.type === "text_delta" && typeof delta.text === "string") this.sink.textDelta(block.id, delta.text);
        else if (delta.type === "citations_delta") this.cite(block.id, delta.citation);
        return;
      case "tool":
        if (delta.type !== "input_json_delta" || typeof delta.partial_json !== "string" || delta.partial_json.length === 0) return;
        block.withoutInput = false;
        return this.sink.toolDelta(block.id, delta.partial_json);
      case "search":
        if (delta.type === "input_json_delta" && typeof delta.partial_json === "string") block.input += delta.partial_json;
        return;
      case "reasoning":
        if (delta.type === "thinking_delta" && typeof delta.thinking === "string") this.sink.reasoningDelta(block.id, delta.thinking);
        else if (delta.type === "signature_delta" && typeof delta.signature === "string") this.sink.reasoningSignature(block.id, { origin: "anthropic", value: delta.signature });
        return;
      default:
        return;
    }
  }

  private stopBlock(block: Block | undefined): void {
    switch (block?.kind) {
      case "text":
        return this.sink.textEnd(block.id);
      case "tool":
        // Function-call arguments are a JSON object: "{}" when the tool took no input.
        if (block.withoutInput) this.sink.toolDelta(block.id, "{}");
        return this.sink.toolEnd(block.id);
      case "search":
        return this.sink.searchQuery(block.id, webSearchQuery(tryJson(block.input.length > 0 ? block.input : "{}")));
      case "reasoning":
        return this.sink.reasoningEnd(block.id);
      default:
        return;
    }
  }

  private cite(textId: string, citation: unknown): void {
    const source = citationSource(citation);
    if (source) this.sink.source(textId, source);
  }
}
