import type { UpstreamRecord } from "@gateway/redis-store";
import type { EndpointName } from "../upstreams/index.ts";
import { chatToMessages } from "./chat-to-messages/index.ts";
import { messagesToChat } from "./messages-to-chat/index.ts";
import { responsesToChat } from "./responses-to-chat/index.ts";
import { responsesToMessages } from "./responses-to-messages/index.ts";
import { unsupported } from "../core/fields.ts";
import type { Translation } from "./types.ts";
import { fromGemini, geminiEmbeddingsOn, toGemini } from "../shapes/gemini/translations.ts";

export type { StreamTranslator, Translation, TranslationName } from "./types.ts";
export { DroppedParams, DROPPED_PARAMS_HEADER } from "../core/drops.ts";

/**
 * How a call to `clientEndpoint` reaches this upstream: null when the upstream speaks the
 * endpoint's own shape (relayed as today), else the translation both ways. Responses goes through
 * Chat Completions on an OpenAI upstream whose `supportsResponses` capability is off. Throws the
 * 400 naming `model` when the upstream cannot serve the endpoint at all.
 */
export function translationFor(clientEndpoint: EndpointName, upstream: UpstreamRecord): Translation | null {
  switch (clientEndpoint) {
    case "chat.completions":
      if (upstream.shape === "gemini") return toGemini(clientEndpoint);
      return upstream.shape === "openai" ? null : chatToMessages;
    case "messages":
      if (upstream.shape === "gemini") return toGemini(clientEndpoint);
      return upstream.shape === "anthropic" ? null : messagesToChat;
    case "responses":
      if (upstream.shape === "gemini") return toGemini(clientEndpoint);
      if (upstream.shape === "anthropic") return responsesToMessages;
      return upstream.supportsResponses ? null : responsesToChat;
    case "images.generations":
      if (upstream.shape === "openai") return null;
      throw unsupported("model", "image generation is not served by an Anthropic-shape upstream");
    case "embeddings":
      if (upstream.shape === "openai") return null;
      throw unsupported("model", "embeddings are not served by an Anthropic-shape upstream");
    case "messages.count_tokens":
      // Counted by the proxy itself on an OpenAI-shape model (routes/v1-count-tokens.ts), never sent there.
      if (upstream.shape === "anthropic") return null;
      throw unsupported("model", "token counts are forwarded to Anthropic-shape upstreams only");
    case "gemini.generate_content":
      return upstream.shape === "gemini" ? null : fromGemini(upstream.shape);
    case "gemini.count_tokens":
      // Counted by the proxy itself on a model of another shape (routes/gemini.ts), never sent there.
      if (upstream.shape === "gemini") return null;
      throw unsupported("model", "countTokens of a Gemini client is forwarded to Gemini-shape upstreams only");
    case "gemini.embed_content":
      return upstream.shape === "gemini" ? null : geminiEmbeddingsOn(upstream.shape);
    default: {
      const never: never = clientEndpoint;
      return never;
    }
  }
}
