import type { UpstreamRecord } from "@gateway/redis-store";
import type { Answer } from "../core/answer.ts";
import type { RequestAccepts, RequestReader, RequestWriter } from "../core/neutral-request.ts";
import type { PartSink, StreamReader, StreamWriter } from "../core/stream-parts.ts";
import type { EndpointName, ParsedRequest, Shape, WireFormat } from "../upstreams/index.ts";
import { WIRE_FORMATS } from "../upstreams/index.ts";
import { answerFromMessage } from "./anthropic-messages/reader/response.ts";
import { AnthropicStreamReader } from "./anthropic-messages/reader/stream.ts";
import { messageFromAnswer } from "./anthropic-messages/writer/response.ts";
import { MessagesStreamWriter } from "./anthropic-messages/writer/stream.ts";
import { answerFromChatCompletion } from "./openai-chat/reader/response.ts";
import { ChatChunksReader } from "./openai-chat/reader/stream.ts";
import { chatCompletionFromAnswer } from "./openai-chat/writer/response.ts";
import { ChatStreamWriter } from "./openai-chat/writer/stream.ts";
import { responseFromAnswer } from "./openai-responses/writer/response.ts";
import { ResponsesStreamWriter } from "./openai-responses/writer/stream.ts";
import { asRecord } from "../upstreams/request-fields.ts";

/**
 * The one list of shapes (shared/design/neutral-core.md section 4). Each entry is one shape's
 * folder seen from outside: the client side (it reads the client's request, writes the answer and
 * the stream in that shape) and/or the upstream side (it writes the upstream's request, reads its
 * answer and stream). A cross-shape call is `upstream.writeRequest(client.readRequest(body))` one
 * way and `client.writeResponse(upstream.readResponse(body))` / `client.streamWriter` fed by
 * `upstream.streamReader` the other: `translationFor` builds every pair from this list, so a new
 * shape (Gemini) is one entry here and one folder under `shapes/`, never a direction folder.
 */

/** A translation's name is `${client}-to-${upstream}` of these ids (`messages-to-chat`). */
export type ShapeId = "chat" | "messages" | "responses" | "gemini";

export interface ClientSide {
  /** The endpoint this shape answers on (the client's API). */
  endpoint: EndpointName;
  /** Whether the upstream serves this shape itself: then the call is same-shape and never translated (raw bytes). */
  native(upstream: UpstreamRecord): boolean;
  /** The client's body -> the neutral request (`shapes/<shape>/reader/request.ts` `readRequest`). */
  readRequest: RequestReader;
  /** A whole neutral answer in the client's shape. */
  writeResponse(answer: Answer, client: ParsedRequest): Record<string, unknown>;
  /** A fresh stream writer for one attempt (one per client stream). */
  streamWriter(client: ParsedRequest): StreamWriter;
  /** How this shape's tool-call ids begin, for a call the upstream gave no id: `toolu_`, `call_`. */
  callIdPrefix: "call_" | "toolu_" | (string & {});
}

export interface UpstreamSide {
  /** The upstream kind (`upstreams[].shape` in the gateway file) whose cross-shape requests this side writes. */
  kind: Shape;
  /** Its wire format: path, usage capture (billing reads it, not the translation), stream tracker. */
  wire: WireFormat;
  /** What its request writer takes; the rest is dropped or refused by `dropOrRefuse` (core). */
  accepts: RequestAccepts;
  /** The neutral request -> the upstream's body (`shapes/<shape>/writer/request.ts` `writeRequest`). */
  writeRequest: RequestWriter;
  /** The upstream's JSON body -> a neutral answer. */
  readResponse(body: unknown): Answer;
  /** A fresh reader of the upstream's stream events, feeding `sink` (the client's writer). */
  streamReader(sink: PartSink, callIdPrefix: string): StreamReader;
}

export interface ShapeEntry {
  id: ShapeId;
  /** Absent: no client speaks it through this gateway. */
  client?: ClientSide;
  /** Absent: no upstream of another shape is reached through it (Responses upstreams are served same-shape only). */
  upstream?: UpstreamSide;
}

/**
 * The entries, filled side by side as the migration moves each half in (step 6 moves the request
 * readers and writers; until then `translation/index.ts` still answers `translationFor`).
 */
export interface ShapeSides {
  client?: Omit<ClientSide, "readRequest"> & { readRequest?: RequestReader };
  upstream?: Omit<UpstreamSide, "writeRequest" | "accepts"> & { writeRequest?: RequestWriter; accepts?: RequestAccepts };
}

export const SHAPE_SIDES: Record<Exclude<ShapeId, "gemini">, ShapeSides> = {
  chat: {
    client: {
      endpoint: "chat.completions",
      native: (upstream) => upstream.shape === "openai",
      writeResponse: (answer) => chatCompletionFromAnswer(answer),
      streamWriter: (client) => new ChatStreamWriter(asRecord(client.body.stream_options)?.include_usage === true),
      callIdPrefix: "call_",
    },
    upstream: {
      kind: "openai",
      wire: WIRE_FORMATS["chat.completions"],
      readResponse: answerFromChatCompletion,
      streamReader: (sink, callIdPrefix) => new ChatChunksReader(sink, callIdPrefix === "toolu_" ? "toolu_" : "call_"),
    },
  },
  messages: {
    client: {
      endpoint: "messages",
      native: (upstream) => upstream.shape === "anthropic",
      writeResponse: (answer, client) => messageFromAnswer(answer, client.body.model),
      streamWriter: (client) => new MessagesStreamWriter(client.model),
      callIdPrefix: "toolu_",
    },
    upstream: {
      kind: "anthropic",
      wire: WIRE_FORMATS.messages,
      readResponse: answerFromMessage,
      streamReader: (sink) => new AnthropicStreamReader(sink),
    },
  },
  responses: {
    client: {
      endpoint: "responses",
      // An OpenAI upstream without the Responses API is reached through Chat Completions.
      native: (upstream) => upstream.shape === "openai" && upstream.supportsResponses,
      writeResponse: (answer, client) => responseFromAnswer(answer, client.body),
      streamWriter: (client) => new ResponsesStreamWriter(client.body),
      callIdPrefix: "call_",
    },
  },
};
