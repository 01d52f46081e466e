import type { EventSourceMessage } from "eventsource-parser";
import type { Usage } from "@gateway/contracts";
import { asRecord, tryJson } from "../../upstreams/request-fields.ts";
import { ResponsesStreamWriter } from "../responses-output/stream-writer.ts";
import { list } from "../../core/fields.ts";
import { CalledTools } from "../shared/namespace-tools.ts";
import { asAnthropicStopReason, type AnthropicStopReason } from "../shared/stop-reasons.ts";
import { anthropicUsage } from "../shared/usage-bodies.ts";
import { urlCitations, wantsWebSearchSources, webSearchQuery, webSearchSources } from "../shared/web-search.ts";
import type { StreamTranslator } from "../types.ts";
import { responsesOutcomeFromMessages } from "./outcome.ts";

/** The content block open in the upstream stream, as far as this translator must remember it. */
type OpenBlock =
  /** `start`: where its text begins in the output_text part; `citations`: web search citations on it. */
  | { type: "text"; start: number; citations: unknown[] }
  /** `withoutInput`: no input streamed yet (a tool without input sends none). */
  | { type: "tool_use"; withoutInput: boolean }
  /** A web search: its input (the query) is read whole before it is said. */
  | { type: "server_tool_use"; input: string }
  | { type: "other" };

/**
 * Anthropic stream events -> Responses events: message_start opens the response; text blocks fill
 * a message item (web search citations become url_citation annotations when the block stops),
 * tool_use blocks become function_call items with argument deltas (namespace tools answered with
 * their namespace), thinking blocks reasoning items, a web search (server_tool_use, then
 * web_search_tool_result) a web_search_call item; message_delta gives the outcome and usage;
 * message_stop completes the response.
 */
export class ResponsesStreamFromMessages implements StreamTranslator {
  private readonly writer: ResponsesStreamWriter;
  private readonly tools: CalledTools;
  private readonly withSources: boolean;
  private stopReason: AnthropicStopReason | null = null;
  private usage: Usage | null = null;
  private block: OpenBlock = { type: "other" };

  constructor(request: Record<string, unknown>) {
    this.writer = new ResponsesStreamWriter(request);
    this.tools = new CalledTools(request);
    this.withSources = wantsWebSearchSources(request);
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
    this.block = { type: "other" };
    switch (block.type) {
      case "text":
        this.block = { type: "text", start: this.writer.textOffset(), citations: [...list(block.citations)] };
        return typeof block.text === "string" && block.text.length > 0 ? this.writer.text(block.text) : "";
      case "tool_use": {
        this.block = { type: "tool_use", withoutInput: true };
        const called = this.tools.resolve(String(block.name));
        if (called.custom) return this.writer.customToolCall(String(block.id), called.name, called.namespace);
        return this.writer.functionCall(String(block.id), called.name, called.namespace);
      }
      case "server_tool_use":
        // Only web search is ever asked for (the request mapper refuses other server tools).
        this.block = { type: "server_tool_use", input: "" };
        return this.writer.webSearchCall(String(block.id));
      case "web_search_tool_result": {
        const sources = webSearchSources(block.content);
        return this.writer.webSearchResult(this.withSources ? (sources ?? []) : null, sources === null);
      }
      case "thinking":
        return this.writer.startReasoning() + (typeof block.thinking === "string" && block.thinking.length > 0 ? this.writer.reasoning(block.thinking) : "");
      case "redacted_thinking":
        return this.writer.redactedReasoning(String(block.data));
      default:
        return "";
    }
  }

  private stopBlock(): string {
    const block = this.block;
    this.block = { type: "other" };
    switch (block.type) {
      case "text":
        // A cited block's citations cover its text, whose end is known only now.
        return urlCitations(block.citations, block.start, this.writer.textOffset())
          .map((annotation) => this.writer.annotation(annotation))
          .join("");
      case "tool_use":
        // Function-call arguments are a JSON object: "{}" when the tool took no input.
        return block.withoutInput ? this.writer.functionArguments("{}") : "";
      case "server_tool_use":
        return this.writer.webSearchSearching(webSearchQuery(tryJson(block.input.length > 0 ? block.input : "{}")));
      case "other":
        return "";
      default: {
        const never: never = block;
        return never;
      }
    }
  }

  private delta(delta: Record<string, unknown>): string {
    switch (delta.type) {
      case "text_delta":
        return typeof delta.text === "string" ? this.writer.text(delta.text) : "";
      case "citations_delta":
        if (this.block.type === "text" && delta.citation !== undefined) this.block.citations.push(delta.citation);
        return "";
      case "input_json_delta":
        if (typeof delta.partial_json !== "string" || delta.partial_json.length === 0) return "";
        if (this.block.type === "server_tool_use") {
          this.block.input += delta.partial_json;
          return "";
        }
        if (this.block.type === "tool_use") this.block.withoutInput = false;
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
