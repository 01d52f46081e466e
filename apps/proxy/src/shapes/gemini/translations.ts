import { unsupported } from "../../core/fields.ts";
import { PartStream } from "../../core/pipeline.ts";
import type { RequestReader, RequestWriter, RequestAccepts } from "../../core/neutral-request.ts";
import type { Translation, TranslationName } from "../../translation/types.ts";
import type { EndpointName, ParsedRequest, Shape } from "../../upstreams/index.ts";
import { WIRE_FORMATS } from "../../upstreams/index.ts";
import { SHAPE_SIDES, type ClientSide, type UpstreamSide } from "../index.ts";
import { readRequest as readChat } from "../openai-chat/reader/request.ts";
import { writeRequest as writeChat } from "../openai-chat/writer/request.ts";
import { accepts as chatAccepts } from "../openai-chat/writer/accepts.ts";
import { readRequest as readMessages } from "../anthropic-messages/reader/request.ts";
import { writeRequest as writeMessages } from "../anthropic-messages/writer/request.ts";
import { accepts as messagesAccepts } from "../anthropic-messages/writer/accepts.ts";
import { readRequest as readGemini } from "./reader/request.ts";
import { answerFromGemini } from "./reader/response.ts";
import { GeminiStreamReader } from "./reader/stream.ts";
import { writeRequest as writeGemini } from "./writer/request.ts";
import { accepts as geminiAccepts } from "./writer/accepts.ts";
import { geminiResponseFromAnswer, includesThoughts } from "./writer/response.ts";
import { GeminiStreamWriter } from "./writer/stream.ts";
import { generateContent } from "./wire.ts";
import { embedTexts } from "./wire.ts";

/*
 * Gemini against every other shape, composed from the shapes' readers and writers (one reader and
 * one writer per shape, shared/design/neutral-core.md section 4): the client's body is read into
 * the neutral request and written in the upstream's words, the upstream's answer or stream is read
 * into neutral parts and written in the client's. No pairwise code: each pair is one composition.
 * (Where shapes/index.ts will compose every pair once the other shapes' request halves are in
 * SHAPE_SIDES; until then this file holds the Gemini pairs.)
 */

/** The Gemini client side (its reader, and its answer and stream writers). */
export const geminiClient: ClientSide = {
  endpoint: "gemini.generate_content",
  native: (upstream) => upstream.shape === "gemini",
  readRequest: readGemini,
  writeResponse: geminiResponseFromAnswer,
  streamWriter: (client) => new GeminiStreamWriter(client.model, includesThoughts(client)),
  callIdPrefix: "call_",
};

/** The Gemini upstream side (its request writer, and its answer and stream readers). */
export const geminiUpstream: UpstreamSide = {
  kind: "gemini",
  wire: generateContent,
  accepts: geminiAccepts,
  writeRequest: writeGemini,
  readResponse: answerFromGemini,
  streamReader: (sink, callIdPrefix) => new GeminiStreamReader(sink, callIdPrefix),
};

function composed(name: TranslationName, client: ClientSide, upstream: UpstreamSide): Translation {
  return {
    name,
    upstreamWire: upstream.wire,
    request(parsed: ParsedRequest, dropped) {
      const neutral = client.readRequest(parsed.body, { drops: dropped, accepts: upstream.accepts, outputBound: parsed.outputBound });
      neutral.model = parsed.model;
      neutral.stream = parsed.stream;
      return { ...parsed, body: upstream.writeRequest(neutral, { drops: dropped, outputBound: parsed.outputBound }) };
    },
    response: (body, parsed) => client.writeResponse(upstream.readResponse(body), parsed),
    stream: (parsed) => new PartStream(client.streamWriter(parsed), (sink) => upstream.streamReader(sink, client.callIdPrefix)),
  };
}

function side<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`shapes/index.ts has no ${what}`);
  return value;
}

function clientOf(id: "chat" | "messages", readRequest: RequestReader): ClientSide {
  return { ...side(SHAPE_SIDES[id].client, `${id} client side`), readRequest };
}

function upstreamOf(id: "chat" | "messages", writeRequest: RequestWriter, accepts: RequestAccepts): UpstreamSide {
  return { ...side(SHAPE_SIDES[id].upstream, `${id} upstream side`), writeRequest, accepts };
}

let pairs: Map<TranslationName, Translation> | null = null;

/** Made on first use: shapes/index.ts and the wire table are complete by then (they import each other's modules). */
function pair(name: TranslationName): Translation {
  pairs ??= new Map<TranslationName, Translation>([
    ["chat-to-gemini", composed("chat-to-gemini", clientOf("chat", readChat), geminiUpstream)],
    ["messages-to-gemini", composed("messages-to-gemini", clientOf("messages", readMessages), geminiUpstream)],
    ["gemini-to-chat", composed("gemini-to-chat", geminiClient, upstreamOf("chat", writeChat, chatAccepts))],
    ["gemini-to-messages", composed("gemini-to-messages", geminiClient, upstreamOf("messages", writeMessages, messagesAccepts))],
    ["gemini-embed-to-openai", embedToOpenAI()],
  ]);
  return pairs.get(name)!;
}

/** A chat, Messages or Responses call served by a Gemini-shape upstream. */
export function toGemini(endpoint: EndpointName): Translation {
  switch (endpoint) {
    case "chat.completions":
      return pair("chat-to-gemini");
    case "messages":
      return pair("messages-to-gemini");
    default:
      throw unsupported("model", `${endpoint} requests do not reach a Gemini-shape upstream yet`);
  }
}

/** A Gemini generateContent call served by an upstream of another shape. */
export function fromGemini(shape: Shape): Translation {
  switch (shape) {
    case "openai":
      return pair("gemini-to-chat");
    case "anthropic":
      return pair("gemini-to-messages");
    default:
      throw unsupported("model", `Gemini requests do not reach a ${shape}-shape upstream`);
  }
}

/** A Gemini embedding call (embedContent or batchEmbedContents) on an OpenAI-shape upstream. */
export function geminiEmbeddingsOn(shape: Shape): Translation {
  if (shape === "openai") return pair("gemini-embed-to-openai");
  throw unsupported("model", "embeddings are served by Gemini- and OpenAI-shape upstreams only");
}

/**
 * embedContent / batchEmbedContents -> OpenAI embeddings (a wire-level mapping: embeddings have no
 * neutral form): one input per request (its parts' texts), `outputDimensionality` as `dimensions`;
 * the vectors back as `{"embedding":{"values"}}` or `{"embeddings":[...]}` as the client asked.
 */
function embedToOpenAI(): Translation {
  return {
    name: "gemini-embed-to-openai",
    upstreamWire: WIRE_FORMATS.embeddings,
    request(parsed, dropped) {
      const requests = Array.isArray(parsed.body.requests) ? (parsed.body.requests as Record<string, unknown>[]) : [parsed.body];
      const dimensions = requests[0]?.outputDimensionality;
      requests.forEach((request, index) => {
        const prefix = Array.isArray(parsed.body.requests) ? `requests[${index}].` : "";
        dropped.dropIfSet(request, "taskType", prefix, "OpenAI embeddings take no task type");
        dropped.dropIfSet(request, "title", prefix, "OpenAI embeddings take no title");
      });
      const body: Record<string, unknown> = { model: parsed.model, input: embedTexts(parsed), encoding_format: "float" };
      if (typeof dimensions === "number") body.dimensions = dimensions;
      return { ...parsed, body };
    },
    response(upstreamBody, parsed) {
      const data = (upstreamBody as { data?: Array<{ embedding?: unknown }> }).data ?? [];
      const vectors = data.map((item) => ({ values: Array.isArray(item.embedding) ? item.embedding : [] }));
      return Array.isArray(parsed.body.requests) ? { embeddings: vectors } : { embedding: vectors[0] ?? { values: [] } };
    },
    stream() {
      throw new Error("embeddings have no stream");
    },
  };
}
