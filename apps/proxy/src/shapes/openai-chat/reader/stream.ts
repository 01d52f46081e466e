import { itemId } from "../../../core/ids.ts";
import { list } from "../../../core/fields.ts";
import type { PartSink, StreamReader } from "../../../core/stream-parts.ts";
import { chatUsage } from "../usage.ts";
import { asRecord, tryJson } from "../../../core/request-fields.ts";
import { finishFromChat } from "../finish.ts";

/**
 * `chat.completion.chunk`s -> neutral parts, the one place chat chunks are read: the first chunk
 * starts the answer; `content` and `refusal` deltas are text parts (a refusal part apart); each
 * tool call, keyed by its chat `index`, is a tool part whose first delta has its id and name; the
 * last non-null `usage` on any chunk is the usage (some upstreams put it on a chunk with
 * choices); a known `finish_reason` the finish; `[DONE]` the end. Chat chunks close nothing
 * themselves: an open text part ends when a tool call starts, every open part at the finish.
 */
export class ChatChunksReader implements StreamReader {
  private readonly sink: PartSink;
  /** The prefix of a call id invented when the upstream sends none: the client shape's own. */
  private readonly callIdPrefix: "call_" | "toolu_";
  private started = false;
  /** The open text part: its id and whether it is a refusal. */
  private text: { id: string; refusal: boolean } | null = null;
  private texts = 0;
  /** Call ids by chat tool_calls index; those still open. */
  private readonly calls = new Map<number, string>();
  private readonly openCalls: string[] = [];

  constructor(sink: PartSink, callIdPrefix: "call_" | "toolu_" = "call_") {
    this.sink = sink;
    this.callIdPrefix = callIdPrefix;
  }

  push(data: string): void {
    if (data === "[DONE]") return this.end();
    const chunk = asRecord(tryJson(data));
    if (!chunk) return;
    if (!this.started) {
      this.started = true;
      this.sink.start({ id: chunk.id, model: chunk.model });
    }
    const usage = chatUsage(chunk.usage);
    if (usage) this.sink.usage(usage);
    const choice = asRecord(list(chunk.choices)[0]);
    const delta = asRecord(choice?.delta) ?? {};
    if (typeof delta.content === "string" && delta.content.length > 0) this.textDelta(delta.content, false);
    if (typeof delta.refusal === "string" && delta.refusal.length > 0) this.textDelta(delta.refusal, true);
    for (const raw of list(delta.tool_calls)) this.toolCall(asRecord(raw) ?? {});
    const finish = finishFromChat(choice?.finish_reason);
    if (finish) {
      this.closeParts();
      this.sink.finish(finish);
    }
  }

  end(): void {
    this.closeParts();
    this.sink.end();
  }

  private textDelta(delta: string, refusal: boolean): void {
    if (this.text?.refusal !== refusal) {
      this.closeText();
      this.text = { id: `${refusal ? "refusal" : "text"}-${this.texts++}`, refusal };
      this.sink.textStart(this.text.id, refusal);
    }
    this.sink.textDelta(this.text.id, delta);
  }

  private toolCall(call: Record<string, unknown>): void {
    const index = typeof call.index === "number" ? call.index : 0;
    const fn = asRecord(call.function) ?? {};
    let callId = this.calls.get(index);
    if (callId === undefined) {
      this.closeText();
      callId = typeof call.id === "string" ? call.id : itemId(this.callIdPrefix);
      this.calls.set(index, callId);
      this.openCalls.push(callId);
      this.sink.toolStart(callId, typeof fn.name === "string" ? fn.name : "");
    }
    if (typeof fn.arguments === "string" && fn.arguments.length > 0) this.sink.toolDelta(callId, fn.arguments);
  }

  private closeText(): void {
    if (this.text === null) return;
    this.sink.textEnd(this.text.id);
    this.text = null;
  }

  private closeParts(): void {
    this.closeText();
    for (const callId of this.openCalls) this.sink.toolEnd(callId);
    this.openCalls.length = 0;
  }
}
