import type { Shape } from "../core/wire-format.ts";
import type { Translation } from "../core/pipeline.ts";
import { unsupported } from "../core/fields.ts";
import { embedTexts } from "./gemini/wire.ts";
import { embeddings } from "./openai-embeddings/wire.ts";

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
    upstreamWire: embeddings,
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
