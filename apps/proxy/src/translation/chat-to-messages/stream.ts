import type { EventSourceMessage } from "eventsource-parser";
import type { Usage } from "@gateway/contracts";
import { asRecord, tryJson } from "../../upstreams/request-fields.ts";
import { sseFrame } from "../../upstreams/sse.ts";
import { list } from "../../core/fields.ts";
import { derivedId, nowSeconds } from "../../core/ids.ts";
import { asAnthropicStopReason, type AnthropicStopReason } from "../shared/stop-reasons.ts";
import type { StreamTranslator } from "../types.ts";
import { chatFinishReason } from "./finish-reason.ts";
import { chatUsageBody } from "../shared/usage-bodies.ts";
import { chatUrlCitations } from "../shared/web-search.ts";
import { chatUsageFromMessages } from "./usage.ts";

/** `start`: where a text block begins in `content`; `citations`: web search citations on it. */
type Block = { kind: "text"; start: number; citations: unknown[] } | { kind: "tool"; toolIndex: number; hasArguments: boolean } | { kind: "thinking"; thinking: string; signature: string } | { kind: "redacted"; data: unknown } | { kind: "other" };

/**
 * Anthropic stream events -> `chat.completion.chunk`s. The first chunk carries the role; each
 * tool_use block becomes a tool_calls entry whose first delta has its index, id and name
 * (TensorZero #1266) and whose input_json_delta pieces follow as argument deltas; message_delta
 * gives the terminal chunk with finish_reason (after one chunk of all the answer's web search
 * citations as `annotations`, when there are any); message_stop gives the usage chunk (only if the
 * client asked for it) and `[DONE]`. Web search blocks themselves have no chat form.
 */
export class ChatStreamFromMessages implements StreamTranslator {
  emitted = 0;
  private id: string | null = null;
  private model: unknown = null;
  private readonly created = nowSeconds();
  private readonly showUsage: boolean;
  private readonly blocks = new Map<number, Block>();
  private readonly thinkingBlocks: Record<string, unknown>[] = [];
  private toolCount = 0;
  /** Characters of `content` sent so far: where the next text block starts. */
  private contentLength = 0;
  /** `url_citation` annotations of the cited text blocks, sent together before the finish. */
  private readonly annotations: Record<string, unknown>[] = [];
  private usage: Usage | null = null;
  private stopReason: AnthropicStopReason | null = null;
  private stopSequence: unknown = null;
  private finished = false;
  private done = false;

  constructor(showUsage: boolean) {
    this.showUsage = showUsage;
  }

  push(event: EventSourceMessage): string {
    const data = asRecord(tryJson(event.data));
    if (!data || this.done) return "";
    switch (data.type) {
      case "message_start": {
        const message = asRecord(data.message);
        this.id = derivedId("chatcmpl-", message?.id);
        this.model = message?.model ?? null;
        this.usage = chatUsageFromMessages(message?.usage)?.usage ?? null;
        return this.chunk({ role: "assistant", content: "" });
      }
      case "content_block_start":
        return this.startBlock(Number(data.index), asRecord(data.content_block) ?? {});
      case "content_block_delta":
        return this.delta(this.blocks.get(Number(data.index)), asRecord(data.delta) ?? {});
      case "content_block_stop":
        return this.stopBlock(this.blocks.get(Number(data.index)));
      case "message_delta": {
        const delta = asRecord(data.delta);
        this.stopReason = asAnthropicStopReason(delta?.stop_reason);
        this.stopSequence = delta?.stop_sequence ?? null;
        this.usage = chatUsageFromMessages(data.usage, this.usage)?.usage ?? this.usage;
        return this.finishChunk();
      }
      case "message_stop":
        return this.close();
      default:
        return "";
    }
  }

  finish(): string {
    return this.close();
  }

  private startBlock(index: number, block: Record<string, unknown>): string {
    switch (block.type) {
      case "text":
        this.blocks.set(index, { kind: "text", start: this.contentLength, citations: [...list(block.citations)] });
        return typeof block.text === "string" && block.text.length > 0 ? this.content(block.text) : "";
      case "tool_use": {
        const toolIndex = this.toolCount++;
        this.blocks.set(index, { kind: "tool", toolIndex, hasArguments: false });
        return this.chunk({ tool_calls: [{ index: toolIndex, id: block.id, type: "function", function: { name: block.name, arguments: "" } }] });
      }
      case "thinking":
        this.blocks.set(index, { kind: "thinking", thinking: typeof block.thinking === "string" ? block.thinking : "", signature: typeof block.signature === "string" ? block.signature : "" });
        return "";
      case "redacted_thinking":
        this.blocks.set(index, { kind: "redacted", data: block.data });
        return "";
      default:
        this.blocks.set(index, { kind: "other" });
        return "";
    }
  }

  private delta(block: Block | undefined, delta: Record<string, unknown>): string {
    if (!block) return "";
    if (delta.type === "text_delta" && block.kind === "text" && typeof delta.text === "string") return this.content(delta.text);
    if (delta.type === "citations_delta" && block.kind === "text" && delta.citation !== undefined) block.citations.push(delta.citation);
    if (delta.type === "input_json_delta" && block.kind === "tool" && typeof delta.partial_json === "string" && delta.partial_json.length > 0) {
      block.hasArguments = true;
      return this.chunk({ tool_calls: [{ index: block.toolIndex, function: { arguments: delta.partial_json } }] });
    }
    if (delta.type === "thinking_delta" && block.kind === "thinking" && typeof delta.thinking === "string") {
      block.thinking += delta.thinking;
      return this.chunk({ reasoning_content: delta.thinking });
    }
    if (delta.type === "signature_delta" && block.kind === "thinking" && typeof delta.signature === "string") block.signature = delta.signature;
    return "";
  }

  /**
   * A tool without input streams no JSON at all; chat arguments are then "{}", as OpenAI sends.
   * A finished thinking block: all blocks so far, whole and signed (the SDK keeps the last value).
   */
  private stopBlock(block: Block | undefined): string {
    if (block?.kind === "tool" && !block.hasArguments) return this.chunk({ tool_calls: [{ index: block.toolIndex, function: { arguments: "{}" } }] });
    // A cited block's citations cover its text, whose end is known only now.
    if (block?.kind === "text") this.annotations.push(...chatUrlCitations(block.citations, block.start, this.contentLength));
    if (block?.kind === "thinking") this.thinkingBlocks.push({ type: "thinking", thinking: block.thinking, signature: block.signature });
    else if (block?.kind === "redacted") this.thinkingBlocks.push({ type: "redacted_thinking", data: block.data });
    else return "";
    return this.chunk({ thinking_blocks: [...this.thinkingBlocks] });
  }

  /**
   * The finish chunk, after the answer's annotations in one delta of their own (the openai SDK keeps
   * a delta's last `annotations`, the AI SDK reads each as a source: one delta serves both).
   */
  private finishChunk(): string {
    if (this.finished) return "";
    this.finished = true;
    const annotations = this.annotations.length > 0 ? this.chunk({ annotations: this.annotations }) : "";
    const extra = this.stopReason === "stop_sequence" ? { stop_sequence: this.stopSequence } : {};
    return annotations + this.chunk({}, chatFinishReason(this.stopReason), extra);
  }

  private content(text: string): string {
    this.contentLength += text.length;
    return this.chunk({ content: text });
  }

  private close(): string {
    if (this.done) return "";
    let out = this.finishChunk();
    if (this.showUsage && this.usage) out += this.frame({ choices: [], usage: chatUsageBody(this.usage) });
    this.done = true;
    return out + sseFrame("[DONE]");
  }

  private chunk(delta: Record<string, unknown>, finishReason: string | null = null, extra: Record<string, unknown> = {}): string {
    return this.frame({ choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason, ...extra }], ...(this.showUsage ? { usage: null } : {}) });
  }

  private frame(fields: Record<string, unknown>): string {
    this.id ??= derivedId("chatcmpl-", null);
    this.emitted += 1;
    return sseFrame(JSON.stringify({ id: this.id, object: "chat.completion.chunk", created: this.created, model: this.model, ...fields }));
  }
}
