import type { EventSourceMessage } from "eventsource-parser";
import type { Usage } from "@gateway/contracts";
import { asRecord, tryJson } from "../../upstreams/request-fields.ts";
import { ResponsesStreamWriter } from "../responses-output/stream-writer.ts";
import { customToolNames } from "../shared/custom-tools.ts";
import { asAnthropicStopReason, type AnthropicStopReason } from "../shared/stop-reasons.ts";
import { anthropicUsage } from "../shared/usage-bodies.ts";
import type { StreamTranslator } from "../types.ts";
import { responsesOutcomeFromMessages } from "./outcome.ts";

/**
 * Anthropic stream events -> Responses events: message_start opens the response; text blocks fill
 * a message item, tool_use blocks become function_call items with argument deltas, thinking blocks
 * reasoning items; message_delta gives the outcome and usage; message_stop completes the response.
 */
export class ResponsesStreamFromMessages implements StreamTranslator {
  private readonly writer: ResponsesStreamWriter;
  private readonly customTools: ReadonlySet<string>;
  private stopReason: AnthropicStopReason | null = null;
  private usage: Usage | null = null;
  /** The open tool_use block has streamed no input yet (a tool without input sends none). */
  private toolWithoutInput = false;

  constructor(request: Record<string, unknown>) {
    this.writer = new ResponsesStreamWriter(request);
    this.customTools = customToolNames(request);
  }

  get emitted(): number {
    return this.writer.emitted;
  }

  push(event: EventSourceMessage): string {
    const data = asRecord(tryJson(event.data));
    if (!data) return "";
    switch (data.type) {
      case "message_start": {
        const message = asRecord(data.message);
        this.usage = anthropicUsage(message?.usage);
        return this.writer.start(message?.model ?? null);
      }
      case "content_block_start":
        return this.startBlock(asRecord(data.content_block) ?? {});
      case "content_block_delta":
        return this.delta(asRecord(data.delta) ?? {});
      case "content_block_stop":
        return this.stopBlock();
      case "message_delta":
        this.stopReason = asAnthropicStopReason(asRecord(data.delta)?.stop_reason);
        this.usage = anthropicUsage(data.usage, this.usage);
        return "";
      case "message_stop":
        return this.finish();
      default:
        return "";
    }
  }

  finish(): string {
    return this.writer.finish(responsesOutcomeFromMessages(this.stopReason), this.usage);
  }

  private startBlock(block: Record<string, unknown>): string {
    switch (block.type) {
      case "text":
        return typeof block.text === "string" && block.text.length > 0 ? this.writer.text(block.text) : "";
      case "tool_use":
        this.toolWithoutInput = true;
        if (this.customTools.has(String(block.name))) return this.writer.customToolCall(String(block.id), String(block.name));
        return this.writer.functionCall(String(block.id), String(block.name));
      case "thinking":
        return this.writer.startReasoning() + (typeof block.thinking === "string" && block.thinking.length > 0 ? this.writer.reasoning(block.thinking) : "");
      case "redacted_thinking":
        return this.writer.redactedReasoning(String(block.data));
      default:
        return "";
    }
  }

  /** Function-call arguments are a JSON object: "{}" when the tool took no input. */
  private stopBlock(): string {
    if (!this.toolWithoutInput) return "";
    this.toolWithoutInput = false;
    return this.writer.functionArguments("{}");
  }

  private delta(delta: Record<string, unknown>): string {
    switch (delta.type) {
      case "text_delta":
        return typeof delta.text === "string" ? this.writer.text(delta.text) : "";
      case "input_json_delta":
        if (typeof delta.partial_json !== "string" || delta.partial_json.length === 0) return "";
        this.toolWithoutInput = false;
        return this.writer.functionArguments(delta.partial_json);
      case "thinking_delta":
        return typeof delta.thinking === "string" ? this.writer.reasoning(delta.thinking) : "";
      case "signature_delta":
        return typeof delta.signature === "string" ? this.writer.reasoningSignature(delta.signature) : "";
      default:
        return "";
    }
  }
}
