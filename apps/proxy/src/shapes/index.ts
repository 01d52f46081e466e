import type { UpstreamRecord } from "@gateway/redis-store";
import type { Answer } from "../core/answer.ts";
import { unsupported } from "../core/fields.ts";
import type { RequestAccepts, RequestReader, RequestWriter } from "../core/neutral-request.ts";
import { PartStream, type Translation, type TranslationName } from "../core/pipeline.ts";
import type { PartSink, StreamReader, StreamWriter } from "../core/stream-parts.ts";
import type { EndpointName, ParsedRequest, Shape, WireFormat } from "../core/wire-format.ts";
import { WIRE_FORMATS } from "./wire-formats.ts";
import { asRecord } from "../core/request-fields.ts";
import { readRequest as readMessagesRequest } from "./anthropic-messages/reader/request.ts";
import { answerFromMessage } from "./anthropic-messages/reader/response.ts";
import { AnthropicStreamReader } from "./anthropic-messages/reader/stream.ts";
import { accepts as messagesAccepts } from "./anthropic-messages/writer/accepts.ts";
import { writeRequest as writeMessagesRequest } from "./anthropic-messages/writer/request.ts";
import { messageFromAnswer, wantsThinking } from "./anthropic-messages/writer/response.ts";
import { MessagesStreamWriter } from "./anthropic-messages/writer/stream.ts";
import { readRequest as readChatRequest } from "./openai-chat/reader/request.ts";
import { answerFromChatCompletion } from "./openai-chat/reader/response.ts";
import { ChatChunksReader } from "./openai-chat/reader/stream.ts";
import { accepts as chatAccepts } from "./openai-chat/writer/accepts.ts";
import { writeRequest as writeChatRequest } from "./openai-chat/writer/request.ts";
import { chatCompletionFromAnswer } from "./openai-chat/writer/response.ts";
import { ChatStreamWriter } from "./openai-chat/writer/stream.ts";
import { readRequest as readResponsesRequest } from "./openai-responses/reader/request.ts";
import { responseFromAnswer } from "./openai-responses/writer/response.ts";
import { ResponsesStreamWriter } from "./openai-responses/writer/stream.ts";
import { gemini } from "./gemini/index.ts";
import { geminiEmbeddingsOn } from "./gemini-embeddings.ts";
import { bedrockConverse } from "./bedrock-converse/index.ts";

/**
 * The one list of shapes (shared/design/neutral-core.md section 4). Each entry is one shape's
 * folder seen from outside: the client side (it reads the client's request, writes the answer and
 * the stream in that shape) and/or the upstream side (it writes the upstream's request, reads its
 * answer and stream). A cross-shape call is `upstream.writeRequest(client.readRequest(body))` one
 * way and `client.writeResponse(upstream.readResponse(body))` / `client.streamWriter` fed by
 * `upstream.streamReader` the other: `translationFor` builds every pair from this list, so a new
 * shape (Gemini) is one entry in `SHAPE_LIST` and one folder under `shapes/`, never a direction folder.
 */

/** A translation's name is `${client}-to-${upstream}` of these ids (`messages-to-chat`). */
export type ShapeId = "chat" | "messages" | "responses" | "gemini" | "converse";

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
  /** What its request writer takes; the rest is dropped or refused by `dropOrRefuse` (core) while the client's body is read. */
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

const openaiChat: ShapeEntry = {
  id: "chat",
  client: {
    endpoint: "chat.completions",
    native: (upstream) => upstream.shape === "openai",
    readRequest: readChatRequest,
    writeResponse: (answer) => chatCompletionFromAnswer(answer),
    streamWriter: (client) => new ChatStreamWriter(asRecord(client.body.stream_options)?.include_usage === true),
    callIdPrefix: "call_",
  },
  upstream: {
    kind: "openai",
    // Read when used, not at load: the wire table and the shapes import each other's modules.
    get wire() {
      return WIRE_FORMATS["chat.completions"];
    },
    accepts: chatAccepts,
    writeRequest: writeChatRequest,
    readResponse: answerFromChatCompletion,
    streamReader: (sink, callIdPrefix) => new ChatChunksReader(sink, callIdPrefix === "toolu_" ? "toolu_" : "call_"),
  },
};

const anthropicMessages: ShapeEntry = {
  id: "messages",
  client: {
    endpoint: "messages",
    native: (upstream) => upstream.shape === "anthropic",
    readRequest: readMessagesRequest,
    writeResponse: (answer, client) => messageFromAnswer(answer, client.body.model, wantsThinking(client.body)),
    streamWriter: (client) => new MessagesStreamWriter(client.model, wantsThinking(client.body)),
    callIdPrefix: "toolu_",
  },
  upstream: {
    kind: "anthropic",
    get wire() {
      return WIRE_FORMATS.messages;
    },
    accepts: messagesAccepts,
    writeRequest: writeMessagesRequest,
    readResponse: answerFromMessage,
    streamReader: (sink) => new AnthropicStreamReader(sink),
  },
};

const openaiResponses: ShapeEntry = {
  id: "responses",
  client: {
    endpoint: "responses",
    // An OpenAI upstream without the Responses API is reached through Chat Completions.
    native: (upstream) => upstream.shape === "openai" && upstream.supportsResponses,
    readRequest: readResponsesRequest,
    writeResponse: (answer, client) => responseFromAnswer(answer, client.body),
    streamWriter: (client) => new ResponsesStreamWriter(client.body),
    callIdPrefix: "call_",
  },
};

/** The shapes. A new one is a line here (and its folder); every pair with the others follows. */
export const SHAPE_LIST: readonly ShapeEntry[] = [openaiChat, anthropicMessages, openaiResponses, gemini, bedrockConverse];

/** One client side and one upstream side as the relay uses them: each request is read once and written once. */
export function pairTranslation(client: ShapeEntry & { client: ClientSide }, upstream: ShapeEntry & { upstream: UpstreamSide }): Translation {
  const reader = client.client;
  const writer = upstream.upstream;
  return {
    name: `${client.id}-to-${upstream.id}` as TranslationName,
    upstreamWire: writer.wire,
    request: (parsed, dropped, capabilities) => {
      const context = { drops: dropped, outputBound: parsed.outputBound, capabilities };
      const neutral = reader.readRequest(parsed.body, { ...context, accepts: writer.accepts });
      // The route's reading wins (a Gemini client names its model and streaming in the URL).
      neutral.model = parsed.model;
      neutral.stream = parsed.stream;
      return { ...parsed, body: writer.writeRequest(neutral, context) };
    },
    response: (upstreamBody, parsed) => reader.writeResponse(writer.readResponse(upstreamBody), parsed),
    stream: (parsed) => new PartStream(reader.streamWriter(parsed), (sink) => writer.streamReader(sink, reader.callIdPrefix)),
  };
}

/** Every pair, built on first use: `${client}-to-${upstream}` -> its translation. */
let pairs: Map<string, Translation> | null = null;

function pairs_(): Map<string, Translation> {
  if (pairs) return pairs;
  pairs = new Map();
  for (const client of SHAPE_LIST) {
    for (const upstream of SHAPE_LIST) {
      if (client === upstream || !client.client || !upstream.upstream) continue;
      const translation = pairTranslation(client as ShapeEntry & { client: ClientSide }, upstream as ShapeEntry & { upstream: UpstreamSide });
      pairs.set(translation.name, translation);
    }
  }
  return pairs;
}

/** The translation from one shape's clients to another's upstreams (a 500-class fault when the list has no such pair). */
export function translationBetween(client: ShapeId, upstream: ShapeId): Translation {
  const translation = pairs_().get(`${client}-to-${upstream}`);
  if (!translation) throw new Error(`shapes/index.ts pairs no ${client} client with a ${upstream} upstream`);
  return translation;
}

/**
 * The sides by shape id, for code that composes one side with another by hand (the list above is
 * the one to extend; a pair from it needs no such code).
 */
export const SHAPE_SIDES: Record<Exclude<ShapeId, "gemini" | "converse">, Pick<ShapeEntry, "client" | "upstream">> = {
  chat: openaiChat,
  messages: anthropicMessages,
  responses: openaiResponses,
};

/** Endpoints with no neutral form: served by their own shape's upstreams only. */
const SAME_SHAPE_ONLY: Partial<Record<EndpointName, string>> = {
  "images.generations": "image generation is not served by an Anthropic-shape upstream",
  embeddings: "embeddings are not served by an Anthropic-shape upstream",
  // Counted by the proxy itself on an OpenAI-shape model (routes/v1-count-tokens.ts), never sent there.
  "messages.count_tokens": "token counts are forwarded to Anthropic-shape upstreams only",
  // Other shapes are served by the route itself (routes/gemini.ts): a local count.
  "gemini.count_tokens": "countTokens of a Gemini client reach Gemini-shape upstreams only",
};

/**
 * How a call to `clientEndpoint` reaches this upstream: null when the upstream speaks the
 * endpoint's own shape (relayed as it comes, no reader or writer runs), else the translation both
 * ways. Throws the 400 naming `model` when the upstream cannot serve the endpoint at all. A Gemini
 * client's embeddings have no neutral form: on an OpenAI-shape model they are a wire-level mapping of
 * their own (shapes/gemini/index.ts).
 */
export function translationFor(clientEndpoint: EndpointName, upstream: UpstreamRecord): Translation | null {
  if (clientEndpoint === "gemini.embed_content") return upstream.shape === "gemini" ? null : geminiEmbeddingsOn(upstream.shape);
  const client = SHAPE_LIST.find((entry) => entry.client?.endpoint === clientEndpoint);
  if (!client?.client) {
    if (WIRE_FORMATS[clientEndpoint]?.shape === upstream.shape) return null;
    throw unsupported("model", SAME_SHAPE_ONLY[clientEndpoint] ?? `${clientEndpoint} calls are not served by a ${upstream.shape}-shape upstream`);
  }
  if (client.client.native(upstream)) return null;
  const target = SHAPE_LIST.find((entry) => entry.upstream?.kind === upstream.shape);
  const translation = target ? pairs_().get(`${client.id}-to-${target.id}`) : undefined;
  if (!translation) throw unsupported("model", `${clientEndpoint} calls cannot be served by a ${upstream.shape}-shape upstream`);
  return translation;
}
