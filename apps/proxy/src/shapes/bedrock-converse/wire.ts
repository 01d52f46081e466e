import type { Usage } from "@gateway/contracts";
import type { EventSourceMessage } from "eventsource-parser";
import type { ParsedRequest, StreamTracker, WireFormat } from "../../core/wire-format.ts";
import { asRecord, tryJson } from "../../core/request-fields.ts";
import { dataIncludes, dataStartsWith, Probe, sseFrame } from "../../core/sse.ts";
import { converseUsage } from "./usage.ts";

/*
 * Bedrock Converse's wire (shared/notes/wire-gemini-bedrock-vertex-azure.md sections 2.1-2.3): the
 * model id is in the URL, percent-encoded as the AWS SDK sends it (`…-v1%3A0`, an ARN's `/` too),
 * never in the body; `converse` answers JSON, `converse-stream` the binary event stream, which the
 * bedrock transport hands on as SSE: each event one frame named by its type, its data the event as
 * the AWS SDK reads it (`{"metadata":{"usage":{…}}}`), an exception as Anthropic's `error` event
 * (the transport's errors are in that envelope). Upstream only: no client speaks Converse here.
 */

/** `/model/{modelId}/converse` or `/converse-stream`. */
export function conversePath(model: string, stream: boolean): string {
  return `/model/${encodeURIComponent(model)}/${stream ? "converse-stream" : "converse"}`;
}

/** One ConverseStream event as the SSE frame the stream reader and the tracker read. */
export function converseEventFrame(eventType: string, payload: string): string {
  return sseFrame(`{${JSON.stringify(eventType)}:${payload}}`, eventType);
}

const ERROR_START = new Probe('{"type":"error"');
const METADATA = new Probe('{"metadata"');
const TEXT = new Probe('"text"');
const INPUT = new Probe('"input"');

/**
 * Watches a ConverseStream: whole at its `metadata` event (the last one, with the whole usage);
 * `messageStop` comes just before it. Usage is parsed from that event only.
 */
class ConverseStreamTracker implements StreamTracker {
  complete = false;
  private captured: Usage | null = null;

  observe(event: EventSourceMessage): boolean {
    if (dataStartsWith(event, METADATA)) {
      const usage = converseUsage(asRecord(asRecord(tryJson(event.data))?.metadata)?.usage);
      if (usage) this.captured = usage;
      this.complete = true;
    }
    return true;
  }

  isError(event: EventSourceMessage): boolean {
    return dataStartsWith(event, ERROR_START);
  }

  usage(): Usage | null {
    return this.complete ? this.captured : null;
  }

  reported(): Usage | null {
    return this.captured;
  }

  outputText(event: EventSourceMessage): string {
    if (!dataIncludes(event, TEXT) && !dataIncludes(event, INPUT)) return "";
    const delta = asRecord(asRecord(asRecord(tryJson(event.data))?.contentBlockDelta)?.delta);
    if (!delta) return "";
    if (typeof delta.text === "string") return delta.text;
    const reasoning = asRecord(delta.reasoningContent);
    if (typeof reasoning?.text === "string") return reasoning.text;
    const input = asRecord(delta.toolUse)?.input;
    return typeof input === "string" ? input : "";
  }
}

/**
 * POST /model/{modelId}/converse and /converse-stream, as an upstream's wire. Its endpoint is the
 * one it serves for the client (Messages-like generation); never parsed from a client.
 */
export const converse: WireFormat = {
  endpoint: "messages",
  shape: "bedrock-converse",
  upstreamPath: "/converse",
  pathFor: conversePath,
  parse() {
    throw new Error("no client speaks Bedrock Converse to this gateway");
  },
  // The writer's body is whole: no model in it (it is in the URL).
  upstreamBody: () => null,
  usageFromResponse: (body) => converseUsage(asRecord(body)?.usage),
  createStreamTracker: (_request: ParsedRequest) => new ConverseStreamTracker(),
  streamErrorEvent: (message, _code, _sequenceNumber, type = "api_error") => sseFrame(JSON.stringify({ type: "error", error: { type, message } }), "error"),
};
