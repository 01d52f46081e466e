import type { EventSourceMessage } from "eventsource-parser";
import type { Usage } from "@gateway/contracts";
import { chatUsage } from "../../upstreams/openai/usage.ts";
import { asRecord, tryJson } from "../../upstreams/request-fields.ts";
import { ResponsesStreamWriter } from "../responses-output/stream-writer.ts";
import { list } from "../../core/fields.ts";
import { CalledTools } from "../shared/namespace-tools.ts";
import { itemId } from "../../core/ids.ts";
import { asChatFinishReason, type ChatFinishReason } from "../shared/stop-reasons.ts";
import type { StreamTranslator } from "../types.ts";
import { responsesOutcomeFromChat } from "./outcome.ts";

/**
 * `chat.completion.chunk`s -> Responses events: the first chunk opens the response, content and
 * refusal deltas fill a message item, each tool call (by its chat `index`) is a function_call item
 * with argument deltas (a namespace tool's call with its namespace); `[DONE]`, after the usage chunk, completes the response.
 */
export class ResponsesStreamFromChat implements StreamTranslator {
  private readonly writer: ResponsesStreamWriter;
  private readonly tools: CalledTools;
  private readonly calls = new Set<number>();
  private finishReason: ChatFinishReason | null = null;
  private usage: Usage | null = null;

  constructor(request: Record<string, unknown>) {
    this.writer = new ResponsesStreamWriter(request);
    this.tools = new CalledTools(request);
  }

  get emitted(): number {
    return this.writer.emitted;
  }

  push(event: EventSourceMessage): string {
    if (event.data === "[DONE]") return this.finish();
    const chunk = asRecord(tryJson(event.data));
    if (!chunk) return "";
    let out = this.writer.start(chunk.model ?? null);
    this.usage = chatUsage(chunk.usage) ?? this.usage;
    const choice = asRecord(list(chunk.choices)[0]);
    const delta = asRecord(choice?.delta) ?? {};
    if (typeof delta.content === "string" && delta.content.length > 0) out += this.writer.text(delta.content);
    if (typeof delta.refusal === "string" && delta.refusal.length > 0) out += this.writer.refusal(delta.refusal);
    for (const raw of list(delta.tool_calls)) {
      const call = asRecord(raw) ?? {};
      const index = typeof call.index === "number" ? call.index : 0;
      const fn = asRecord(call.function) ?? {};
      if (!this.calls.has(index)) {
        this.calls.add(index);
        const callId = typeof call.id === "string" ? call.id : itemId("call_");
        const called = this.tools.resolve(typeof fn.name === "string" ? fn.name : "");
        out += called.custom ? this.writer.customToolCall(callId, called.name, called.namespace) : this.writer.functionCall(callId, called.name, called.namespace);
      }
      if (typeof fn.arguments === "string") out += this.writer.functionArguments(fn.arguments);
    }
    this.finishReason = asChatFinishReason(choice?.finish_reason) ?? this.finishReason;
    return out;
  }

  finish(): string {
    return this.writer.finish(responsesOutcomeFromChat(this.finishReason), this.usage);
  }
}
