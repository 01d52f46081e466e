import type { EventSourceMessage } from "eventsource-parser";
import type { EndpointName, StreamTracker } from "../core/wire-format.ts";
import { asRecord, tryJson } from "../core/request-fields.ts";
import { dataIncludes, dataIs, Probe } from "../core/sse.ts";

const DONE = new Probe("[DONE]");
const FINISH_REASON = new Probe('"finish_reason":"');

/** Responses API terminal events: they carry the whole response (id, model, status). */
const RESPONSES_TERMINAL = new Set(["response.completed", "response.incomplete", "response.failed"]);
const RESPONSES_START = new Set(["response.created", "response.in_progress"]);

/**
 * What an attempt's span reports of the upstream's answer, read in the upstream's own shape:
 * `gen_ai.response.id`, `.model`, `.finish_reasons`, and (content capture only) the output text,
 * cut at `outputLimit` characters. On a stream only the events that carry these are parsed (a
 * chat chunk: the first, and those with a finish reason; Messages: `message_start` and
 * `message_delta`; Responses: its start and terminal events).
 */
export class ResponseFacts {
  id: string | null = null;
  model: string | null = null;
  readonly finishReasons: string[] = [];
  output = "";
  private readonly endpoint: EndpointName;
  private readonly outputLimit: number;

  /** `outputLimit` 0: no output text is kept. */
  constructor(endpoint: EndpointName, outputLimit: number) {
    this.endpoint = endpoint;
    this.outputLimit = outputLimit;
  }

  event(event: EventSourceMessage, tracker: StreamTracker): void {
    switch (this.endpoint) {
      case "chat.completions":
        if (dataIs(event, DONE)) return;
        if (this.id === null || dataIncludes(event, FINISH_REASON)) this.chatChunk(asRecord(tryJson(event.data)));
        break;
      case "messages":
        if (event.event === "message_start") this.identify(asRecord(asRecord(tryJson(event.data))?.message));
        else if (event.event === "message_delta") this.finish(asRecord(asRecord(tryJson(event.data))?.delta)?.stop_reason);
        break;
      case "responses":
        if (event.event !== undefined && (RESPONSES_TERMINAL.has(event.event) || (this.id === null && RESPONSES_START.has(event.event)))) {
          const response = asRecord(asRecord(tryJson(event.data))?.response);
          this.identify(response);
          if (RESPONSES_TERMINAL.has(event.event)) this.responsesFinish(response);
        }
        break;
      default:
        return;
    }
    if (this.outputLimit > 0 && this.output.length < this.outputLimit) this.keep(tracker.outputText(event));
  }

  body(parsed: unknown): void {
    const body = asRecord(parsed);
    if (!body) return;
    this.identify(body);
    switch (this.endpoint) {
      case "chat.completions":
        this.chatChunk(body);
        if (this.outputLimit > 0 && Array.isArray(body.choices)) for (const choice of body.choices) this.keep(asRecord(asRecord(choice)?.message)?.content);
        break;
      case "messages":
        this.finish(body.stop_reason);
        if (this.outputLimit > 0 && Array.isArray(body.content)) for (const block of body.content) this.keep(asRecord(block)?.text);
        break;
      case "responses":
        this.responsesFinish(body);
        if (this.outputLimit > 0 && Array.isArray(body.output)) {
          for (const item of body.output) {
            const content = asRecord(item)?.content;
            if (Array.isArray(content)) for (const part of content) this.keep(asRecord(part)?.text);
          }
        }
        break;
      default:
        break;
    }
  }

  private chatChunk(chunk: Record<string, unknown> | null): void {
    if (!chunk) return;
    if (this.id === null) this.identify(chunk);
    if (!Array.isArray(chunk.choices)) return;
    for (const choice of chunk.choices) this.finish(asRecord(choice)?.finish_reason);
  }

  private identify(record: Record<string, unknown> | null | undefined): void {
    if (!record) return;
    if (typeof record.id === "string") this.id = record.id;
    if (typeof record.model === "string") this.model = record.model;
  }

  /** The Responses API has no finish reason: its status, or why it is incomplete. */
  private responsesFinish(response: Record<string, unknown> | null | undefined): void {
    if (!response) return;
    const incomplete = asRecord(response.incomplete_details)?.reason;
    this.finish(typeof incomplete === "string" ? incomplete : response.status);
  }

  private finish(reason: unknown): void {
    if (typeof reason === "string" && reason !== "") this.finishReasons.push(reason);
  }

  private keep(text: unknown): void {
    if (typeof text !== "string" || text === "") return;
    const room = this.outputLimit - this.output.length;
    if (room > 0) this.output += text.length > room ? text.slice(0, room) : text;
  }
}
