import type { UpstreamRecord } from "@gateway/redis-store";
import type { EndpointName } from "../upstreams/index.ts";
import { translationFor as pairFromShapes } from "../shapes/index.ts";
import { geminiEmbeddingsOn } from "../shapes/gemini/index.ts";
import type { Translation } from "./types.ts";

export type { StreamTranslator, Translation, TranslationName } from "./types.ts";
export { DroppedParams, DROPPED_PARAMS_HEADER } from "../core/drops.ts";

/**
 * How a call to `clientEndpoint` reaches this upstream: null when the upstream speaks the
 * endpoint's own shape (relayed as it comes), else the translation both ways, every pair built from
 * the one list of shapes (shapes/index.ts). Throws the 400 naming `model` when the upstream cannot
 * serve the endpoint at all. A Gemini client's embeddings have no neutral form: on an OpenAI-shape
 * model they are a wire-level mapping of their own (shapes/gemini/index.ts).
 */
export function translationFor(clientEndpoint: EndpointName, upstream: UpstreamRecord): Translation | null {
  if (clientEndpoint === "gemini.embed_content") return upstream.shape === "gemini" ? null : geminiEmbeddingsOn(upstream.shape);
  return pairFromShapes(clientEndpoint, upstream);
}
