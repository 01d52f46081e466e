import type { ShapeEntry } from "../index.ts";
import type { Translation } from "../../core/pipeline.ts";
import { WIRE_FORMATS, type Shape } from "../../upstreams/index.ts";
import { unsupported } from "../../core/fields.ts";
import { readRequest } from "./reader/request.ts";
import { answerFromGemini } from "./reader/response.ts";
import { GeminiStreamReader } from "./reader/stream.ts";
import { writeRequest } from "./writer/request.ts";
import { accepts } from "./writer/accepts.ts";
import { geminiResponseFromAnswer, includesThoughts } from "./writer/response.ts";
import { GeminiStreamWriter } from "./writer/stream.ts";
import { embedTexts, generateContent } from "./wire.ts";

/**
 * The Gemini shape seen from outside (shapes/index.ts lists it): the client side reads a
 * generateContent body and writes Google's answers and streams; the upstream side writes a
 * generateContent body and reads Google's answers and streams. Every pair with the other shapes
 * is composed from these by shapes/index.ts (`pairTranslation`).
 */
export const gemini: ShapeEntry = {
  id: "gemini",
  client: {
    endpoint: "gemini.generate_content",
    native: (upstream) => upstream.shape === "gemini",
    readRequest,
    writeResponse: geminiResponseFromAnswer,
    streamWriter: (client) => new GeminiStreamWriter(client.model, includesThoughts(client)),
    callIdPrefix: "call_",
  },
  upstream: {
    kind: "gemini",
    wire: generateContent,
    accepts,
    writeRequest,
    readResponse: answerFromGemini,
    streamReader: (sink, callIdPrefix) => new GeminiStreamReader(sink, callIdPrefix),
  },
};

/**
 * embedContent / batchEmbedContents -> OpenAI embeddings (a wire-level mapping: embeddings have no
 * neutral form): one input per request (its parts' texts), `outputDimensionality` as `dimensions`;
 * the vectors back as `{"embedding":{"values"}}` or `{"embeddings":[...]}` as the client asked.
 */
const geminiEmbeddingsOnOpenAI: Translation = embedToOpenAI();

/** A Gemini embedding call (embedContent, batchEmbedContents) on an upstream of another shape: OpenAI embeddings, or a 400 naming `model`. */
export function geminiEmbeddingsOn(shape: Shape): Translation {
  if (shape === "openai") return geminiEmbeddingsOnOpenAI;
  throw unsupported("model", "embeddings of a Gemini client are served by Gemini- and OpenAI-shape upstreams only");
}

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
