import { derivedId, nowSeconds } from "../../../core/ids.ts";
import { BufferedWriter } from "../../../core/pipeline.ts";
import { encodeOpaque } from "../../../core/opaque.ts";
import type { Finish, Opaque, Source, StreamWriter } from "../../../core/stream-parts.ts";
import { sseFrame } from "../../../core/sse.ts";
import { chatFinishReasonFor } from "../finish.ts";
import { chatUsageBody } from "../usage.ts";

/** A reasoning block being written: its text and signature, or the redacted data. */
type Reasoning = { id: string; thinking: string; signature: string } | { id: string; redacted: string };

/**
 * Neutral parts -> `chat.completion.chunk`s. The first chunk carries the role; each tool call is a
 * tool_calls entry whose first delta has its index, id and name (TensorZero #1266) and whose
 * argument pieces follow; reasoning goes out as `reasoning_content` deltas and, once a block ends,
 * all blocks so far whole and signed in `thinking_blocks` (the SDK keeps the last value); the
 * finish gives the terminal chunk with finish_reason (after one chunk of all the answer's cited
 * sources as `annotations`, when there are any); the end gives the usage chunk (only if the client
 * asked for it) and `[DONE]`. Web searches themselves have no chat form.
 */
export class ChatStreamWriter extends BufferedWriter implements StreamWriter {
  emitted = 0;
  private id: string | null = null;
  private model: unknown = null;
  private readonly created = nowSeconds();
  private readonly showUsage: boolean;
  private readonly toolIndexes = new Map<string, number>();
  private reasoning: Reasoning | null = null;
  private readonly thinkingBlocks: Record<string, unknown>[] = [];
  /** Characters of `content` sent so far: where the next text part starts. */
  private contentLength = 0;
  /** The open text part: where it starts in `content`, and the sources it cites. */
  private text: { id: string; refusal: boolean; start: number; sources: Source[] } | null = null;
  /** `url_citation` annotations of the cited text parts, sent together before the finish. */
  private readonly annotations: Record<string, unknown>[] = [];
  private finished = false;
  private done = false;

  constructor(showUsage: boolean) {
    super();
    this.showUsage = showUsage;
  }

  start(meta: { id?: unknown; model?: unknown }): void {
    this.id = derivedId("chatcmpl-", meta.id);
    this.model = meta.model ?? null;
    this.chunk({ role: "assistant", content: "" });
  }

  textStart(id: string, refusal = false): void {
    this.text = { id, refusal, start: this.contentLength, sources: [] };
  }

  textDelta(id: string, delta: string): void {
    if (this.text?.id === id && this.text.refusal) return this.chunk({ refusal: delta });
    this.contentLength += delta.length;
    this.chunk({ content: delta });
  }

  textEnd(id: string): void {
    const text = this.text;
    if (text?.id !== id) return;
    this.text = null;
    // Cited sources cover the part's text, whose end is known only now.
    for (const { url, title } of text.sources) {
      this.annotations.push({ type: "url_citation", url_citation: { start_index: text.start, end_index: this.contentLength, url, title } });
    }
  }

  source(textId: string, source: Source): void {
    if (this.text?.id === textId) this.text.sources.push(source);
  }

  reasoningStart(id: string, redacted?: Opaque): void {
    this.reasoning = redacted ? { id, redacted: encodeOpaque(redacted) } : { id, thinking: "", signature: "" };
  }

  reasoningDelta(id: string, delta: string): void {
    const reasoning = this.reasoning;
    if (reasoning?.id !== id || "redacted" in reasoning) return;
    reasoning.thinking += delta;
    this.chunk({ reasoning_content: delta });
  }

  reasoningSignature(id: string, signature: Opaque): void {
    if (this.reasoning?.id === id && "signature" in this.reasoning) this.reasoning.signature = encodeOpaque(signature);
  }

  reasoningEnd(id: string): void {
    const reasoning = this.reasoning;
    if (reasoning?.id !== id) return;
    this.reasoning = null;
    this.thinkingBlocks.push(
      "redacted" in reasoning ? { type: "redacted_thinking", data: reasoning.redacted } : { type: "thinking", thinking: reasoning.thinking, signature: reasoning.signature },
    );
    this.chunk({ thinking_blocks: [...this.thinkingBlocks] });
  }

  toolStart(callId: string, name: string): void {
    const index = this.toolIndexes.size;
    this.toolIndexes.set(callId, index);
    this.chunk({ tool_calls: [{ index, id: callId, type: "function", function: { name, arguments: "" } }] });
  }

  toolDelta(callId: string, json: string): void {
    const index = this.toolIndexes.get(callId);
    if (index !== undefined) this.chunk({ tool_calls: [{ index, function: { arguments: json } }] });
  }

  toolEnd(): void {}

  searchStart(): void {}

  searchQuery(): void {}

  searchResult(): void {}

  /**
   * The finish chunk, after the answer's annotations in one delta of their own (the openai SDK keeps
   * a delta's last `annotations`, the AI SDK reads each as a source: one delta serves both).
   */
  finish(end: Finish | null): void {
    if (this.finished) return;
    this.finished = true;
    if (this.annotations.length > 0) this.chunk({ annotations: this.annotations });
    const extra = end?.reason === "stop-sequence" ? { stop_sequence: end.stopSequence ?? null } : {};
    this.chunk({}, chatFinishReasonFor(end), extra);
  }

  end(): void {
    if (this.done) return;
    this.finish(null);
    if (this.showUsage && this.lastUsage) this.frame({ choices: [], usage: chatUsageBody(this.lastUsage) });
    this.done = true;
    this.out += sseFrame("[DONE]");
  }

  private chunk(delta: Record<string, unknown>, finishReason: string | null = null, extra: Record<string, unknown> = {}): void {
    this.frame({ choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason, ...extra }], ...(this.showUsage ? { usage: null } : {}) });
  }

  /** Nothing more once `[DONE]` is written. */
  private frame(fields: Record<string, unknown>): void {
    if (this.done) return;
    this.id ??= derivedId("chatcmpl-", null);
    this.emitted += 1;
    this.out += sseFrame(JSON.stringify({ id: this.id, object: "chat.completion.chunk", created: this.created, model: this.model, ...fields }));
  }
}
