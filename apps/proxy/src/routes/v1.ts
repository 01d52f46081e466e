import type { ServerResponse } from "node:http";
import { CLIENT_SHAPES } from "@gateway/contracts";
import { sendJson } from "@gateway/http";
import type { ProxyServices } from "../services.ts";

/** GET /v1: the public discovery object (spec section 2, contract sections 5 and 16). */
export function discoveryRoute(services: ProxyServices) {
  return (_request: unknown, response: ServerResponse): void => {
    sendJson(response, 200, {
      service: services.config.SERVICE_NAME,
      status: services.redis.status === "ready" ? "ok" : "degraded",
      endpoints: {
        chat_completions: "POST /v1/chat/completions",
        responses: "POST /v1/responses",
        messages: "POST /v1/messages",
        images_generations: "POST /v1/images/generations",
        models: "GET /v1/models",
        usage: "GET /v1/usage",
      },
      // The spec's six keys exactly above; every other endpoint here (contract section 16).
      extensions: {
        messages_count_tokens: "POST /v1/messages/count_tokens",
        embeddings: "POST /v1/embeddings",
        redeem: "POST /v1/redeem",
        // Stored Responses state (contract section 18) and Responses over WebSocket.
        responses_retrieve: "GET /v1/responses/{id}",
        responses_delete: "DELETE /v1/responses/{id}",
        responses_input_items: "GET /v1/responses/{id}/input_items",
        responses_input_tokens: "POST /v1/responses/input_tokens",
        responses_websocket: "GET /v1/responses (Upgrade: websocket)",
        conversations: "POST /v1/conversations",
        conversation: "GET|POST|DELETE /v1/conversations/{id}",
        conversation_items: "GET|POST /v1/conversations/{id}/items",
        conversation_item: "GET|DELETE /v1/conversations/{id}/items/{item_id}",
        // The Gemini API (also under /v1/models/{model}:{method}, as @google/genai 3.x calls it).
        gemini_generate_content: "POST /v1beta/models/{model}:generateContent",
        gemini_stream_generate_content: "POST /v1beta/models/{model}:streamGenerateContent?alt=sse",
        gemini_count_tokens: "POST /v1beta/models/{model}:countTokens",
        gemini_embed_content: "POST /v1beta/models/{model}:embedContent",
        gemini_batch_embed_contents: "POST /v1beta/models/{model}:batchEmbedContents",
        gemini_models: "GET /v1beta/models",
        gemini_model: "GET /v1beta/models/{model}",
      },
      // Every shape is served to clients as well as reached upstream (contract section 16).
      compatible_with: CLIENT_SHAPES,
    });
  };
}
