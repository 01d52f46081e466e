import { EMPTY_USAGE } from "@gateway/contracts";
import { derivedId } from "../../../core/ids.ts";
import { BufferedWriter } from "../../../core/pipeline.ts";
import { encodeOpaque } from "../../../core/opaque.ts";
import type { Finish, Opaque, StreamWriter } from "../../../core/stream-parts.ts";
import { sseFrame } from "../../../core/sse.ts";
import { anthropicStopReasonFor, type AnthropicStopReasonWritten } from "../finish.ts";
import { anthropicUsageBody } from "../usage.ts";

/**
 * Neutral parts -> Anthropic stream events. One message_start on the first part; text and each
 * tool call get their own content block with increasing indexes (a block is closed before the
 * next opens; text parts in a row, a refusal among them, share one text block); argument pieces
 * become input_json_delta; the finish closes the open block; the end gives message_delta with
 * stop_reason and usage, input_tokens included (an OpenAI upstream reports input only at the end:
 * message_start says 0), and message_stop. A refusal part makes the stop reason `refusal`.
 * Reasoning, when the client turned thinking on (Anthropic sends none otherwise), is a thinking
 * block as Anthropic streams one: content_block_start with empty thinking and signature,
 * thinking_delta pieces, the signature as a signature_delta before content_block_stop (tagged by
 * who made it, core/opaque.ts, so the block the client echoes goes back to that kind of upstream
 * only); reasoning that came unsigned keeps the empty signature (the SDKs need the field; read
 * back, an empty one is unsigned). A redacted block is a redacted_thinking block. No reader feeds
 * this writer web searches yet.
 */
export class MessagesStreamWriter extends BufferedWriter implements StreamWriter {
  emitted = 0;
  private started = false;
  private done = false;
  /** The open content block: its index, kind, and the part's id (the call id of a tool_use block). */
  private open: { index: number; kind: "text" | "tool" | "thinking"; id: string | null } | null = null;
  /** The client turned thinking on: reasoning is written (else left out, as Anthropic does). */
  private readonly thinking: boolean;
  private nextIndex = 0;
  private readonly toolBlocks = new Map<string, number>();
  private refusalText: string | null = null;
  private stopReason: AnthropicStopReasonWritten | null = null;
  private stopSequence: unknown = null;
  /** The client's model name: the message's model when the upstream names none. */
  private readonly model: unknown;

  constructor(model: unknown = null, thinking = false) {
    super();
    this.model = model;
    this.thinking = thinking;
  }

  start(meta: { id?: unknown; model?: unknown }): void {
    if (this.started) return;
    this.started = true;
    const message = {
      id: derivedId("msg_", meta.id),
      type: "message",
      role: "assistant",
      model: typeof meta.model === "string" ? meta.model : this.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      // OpenAI reports input tokens only at the end: they follow in message_delta.
      usage: anthropicUsageBody(EMPTY_USAGE),
    };
    this.emit("message_start", { message });
  }

  textStart(id: string, refusal = false): void {
    if (refusal) this.refusalText = id;
  }

  textDelta(id: string, delta: string): void {
    if (this.open?.kind !== "text") {
      this.closeBlock();
      this.openBlock("text", null, { type: "text", text: "" });
    }
    this.emit("content_block_delta", { index: this.open!.index, delta: { type: "text_delta", text: delta } });
    if (id === this.refusalText) this.stopReason = "refusal";
  }

  textEnd(): void {}

  source(): void {}

  reasoningStart(id: string, redacted?: Opaque): void {
    if (!this.thinking) return;
    this.closeBlock();
    this.openBlock("thinking", id, redacted ? { type: "redacted_thinking", data: encodeOpaque(redacted) } : { type: "thinking", thinking: "", signature: "" });
  }

  reasoningDelta(id: string, delta: string): void {
    if (this.isThinking(id)) this.emit("content_block_delta", { index: this.open!.index, delta: { type: "thinking_delta", thinking: delta } });
  }

  reasoningSignature(id: string, signature: Opaque): void {
    if (this.isThinking(id)) this.emit("content_block_delta", { index: this.open!.index, delta: { type: "signature_delta", signature: encodeOpaque(signature) } });
  }

  reasoningEnd(id: string): void {
    if (this.isThinking(id)) this.closeBlock();
  }

  toolStart(callId: string, name: string): void {
    this.closeBlock();
    this.openBlock("tool", callId, { type: "tool_use", id: callId, name, input: {} });
    this.toolBlocks.set(callId, this.open!.index);
  }

  toolDelta(callId: string, json: string): void {
    const index = this.toolBlocks.get(callId);
    if (index !== undefined) this.emit("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: json } });
  }

  toolEnd(): void {}

  searchStart(): void {}

  searchQuery(): void {}

  searchResult(): void {}

  finish(end: Finish): void {
    if (this.stopReason !== "refusal") {
      this.stopReason = anthropicStopReasonFor(end);
      this.stopSequence = end.reason === "stop-sequence" ? (end.stopSequence ?? null) : null;
    }
    this.closeBlock();
  }

  end(): void {
    if (this.done) return;
    this.start({});
    this.closeBlock();
    const usage = anthropicUsageBody(this.lastUsage ?? EMPTY_USAGE);
    this.emit("message_delta", { delta: { stop_reason: this.stopReason ?? "end_turn", stop_sequence: this.stopSequence }, usage });
    this.emit("message_stop", {});
    this.done = true;
  }

  private openBlock(kind: "text" | "tool" | "thinking", id: string | null, block: Record<string, unknown>): void {
    this.open = { index: this.nextIndex++, kind, id };
    this.emit("content_block_start", { index: this.open.index, content_block: block });
  }

  /** The reasoning block `id` is the open one (left out when the client did not turn thinking on). */
  private isThinking(id: string): boolean {
    return this.open?.kind === "thinking" && this.open.id === id;
  }

  private closeBlock(): void {
    if (!this.open) return;
    const index = this.open.index;
    this.open = null;
    this.emit("content_block_stop", { index });
  }

  /** Nothing more once message_stop is written. */
  private emit(type: string, fields: Record<string, unknown>): void {
    if (this.done) return;
    this.emitted += 1;
    this.out += sseFrame(JSON.stringify({ type, ...fields }), type);
  }
}
