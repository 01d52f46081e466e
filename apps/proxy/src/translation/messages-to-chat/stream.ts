import type { EventSourceMessage } from "eventsource-parser";
import { EMPTY_USAGE, type Usage } from "@gateway/contracts";
import { chatUsage } from "../../upstreams/openai/usage.ts";
import { asRecord, tryJson } from "../../upstreams/request-fields.ts";
import { sseFrame } from "../../upstreams/sse.ts";
import { list } from "../../core/fields.ts";
import { derivedId, itemId } from "../../core/ids.ts";
import { asChatFinishReason, type AnthropicStopReason } from "../shared/stop-reasons.ts";
import { anthropicUsageBody } from "../shared/usage-bodies.ts";
import type { StreamTranslator } from "../types.ts";
import { anthropicStopReason } from "./stop-reason.ts";

interface OpenBlock {
  index: number;
  /** The chat tool_calls index this block carries, or null for text. */
  toolIndex: number | null;
}

/**
 * `chat.completion.chunk`s -> Anthropic stream events. One message_start on the first chunk; text
 * and each tool call get their own content block with increasing indexes (a block is closed
 * before the next opens); argument pieces become input_json_delta; the finish_reason chunk closes
 * the open block; `[DONE]` (after the usage chunk the gateway always asks for) gives message_delta
 * with stop_reason and usage, input_tokens included (OpenAI reports input only at the end), and
 * message_stop.
 */
export class MessagesStreamFromChat implements StreamTranslator {
  emitted = 0;
  private started = false;
  private done = false;
  private open: OpenBlock | null = null;
  private nextIndex = 0;
  private readonly toolBlocks = new Map<number, number>();
  private stopReason: AnthropicStopReason | null = null;
  private usage: Usage | null = null;
  /** The client's model name: the message's model when the upstream names none. */
  private readonly model: unknown;

  constructor(model: unknown = null) {
    this.model = model;
  }

  push(event: EventSourceMessage): string {
    if (this.done) return "";
    if (event.data === "[DONE]") return this.close();
    const chunk = asRecord(tryJson(event.data));
    if (!chunk) return "";
    let out = this.start(chunk);
    this.usage = chatUsage(chunk.usage) ?? this.usage;
    const choice = asRecord(list(chunk.choices)[0]);
    const delta = asRecord(choice?.delta) ?? {};
    for (const text of [delta.content, delta.refusal]) {
      if (typeof text === "string" && text.length > 0) out += this.text(text);
    }
    if (typeof delta.refusal === "string" && delta.refusal.length > 0) this.stopReason = "refusal";
    for (const raw of list(delta.tool_calls)) out += this.toolCall(asRecord(raw) ?? {});
    const finish = asChatFinishReason(choice?.finish_reason);
    if (finish) {
      if (this.stopReason !== "refusal") this.stopReason = anthropicStopReason(finish);
      out += this.closeBlock();
    }
    return out;
  }

  finish(): string {
    return this.close();
  }

  private start(chunk: Record<string, unknown>): string {
    if (this.started) return "";
    this.started = true;
    const message = {
      id: derivedId("msg_", chunk.id),
      type: "message",
      role: "assistant",
      model: typeof chunk.model === "string" ? chunk.model : this.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      // OpenAI reports input tokens only at the end: they follow in message_delta.
      usage: anthropicUsageBody(EMPTY_USAGE),
    };
    return this.emit("message_start", { message });
  }

  private text(text: string): string {
    let out = "";
    if (this.open === null || this.open.toolIndex !== null) out += this.closeBlock() + this.openBlock(null, { type: "text", text: "" });
    return out + this.emit("content_block_delta", { index: this.open!.index, delta: { type: "text_delta", text } });
  }

  /** The first delta of a call carries its id and name; later ones only argument pieces. */
  private toolCall(call: Record<string, unknown>): string {
    const toolIndex = typeof call.index === "number" ? call.index : 0;
    const fn = asRecord(call.function) ?? {};
    let out = "";
    let index = this.toolBlocks.get(toolIndex);
    if (index === undefined) {
      const id = typeof call.id === "string" ? call.id : itemId("toolu_");
      out += this.closeBlock() + this.openBlock(toolIndex, { type: "tool_use", id, name: typeof fn.name === "string" ? fn.name : "", input: {} });
      index = this.open!.index;
      this.toolBlocks.set(toolIndex, index);
    }
    if (typeof fn.arguments === "string" && fn.arguments.length > 0) {
      out += this.emit("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: fn.arguments } });
    }
    return out;
  }

  private openBlock(toolIndex: number | null, block: Record<string, unknown>): string {
    this.open = { index: this.nextIndex++, toolIndex };
    return this.emit("content_block_start", { index: this.open.index, content_block: block });
  }

  private closeBlock(): string {
    if (!this.open) return "";
    const index = this.open.index;
    this.open = null;
    return this.emit("content_block_stop", { index });
  }

  private close(): string {
    if (this.done) return "";
    const out = this.start({}) + this.closeBlock();
    this.done = true;
    const usage = anthropicUsageBody(this.usage ?? EMPTY_USAGE);
    return (
      out +
      this.emit("message_delta", { delta: { stop_reason: this.stopReason ?? "end_turn", stop_sequence: null }, usage }) +
      this.emit("message_stop", {})
    );
  }

  private emit(type: string, fields: Record<string, unknown>): string {
    this.emitted += 1;
    return sseFrame(JSON.stringify({ type, ...fields }), type);
  }
}
