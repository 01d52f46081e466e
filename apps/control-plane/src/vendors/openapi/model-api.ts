import { z } from "zod";
import { usageQuerySchema } from "../api-schemas.ts";
import { errorResponses, jsonRequestBody, jsonResponse, queryParameters, type JsonObject, type NamedSchemas } from "./json-schema.ts";
import {
  chatCompletionRequestSchema,
  chatCompletionSchema,
  countTokensRequestSchema,
  countTokensSchema,
  discoverySchema,
  embeddingListSchema,
  embeddingRequestSchema,
  imageGenerationRequestSchema,
  imagesResponseSchema,
  messageRequestSchema,
  messageSchema,
  modelListSchema,
  modelSchema,
  responseRequestSchema,
  responseSchema,
} from "./model-api-schemas.ts";
import { modelAnswerHeaders, requestIdHeader } from "./responses.ts";
import { MODELS_TAG, operation } from "./model-operation.ts";
import { storedStatePaths, storedStateSchemas } from "./stored-state-api.ts";
import { geminiPaths, geminiSchemas, googleKeySchemes } from "./gemini-api.ts";

/**
 * The model API under /v1, served by the proxy (contracts sections 1 to 5, 11, 16 and 18): its own
 * routes here, the stored Responses state and the Conversations API in stored-state-api.ts, the
 * Gemini API in gemini-api.ts. Only what the proxy serves is described; api-openapi.test.ts reads
 * the proxy's route table and its GET /v1 list to keep it so.
 */
export { MODELS_TAG };

export const modelApiSchemas: { input: NamedSchemas; output: NamedSchemas } = {
  input: [
    [chatCompletionRequestSchema, "ChatCompletionRequest"],
    [responseRequestSchema, "ResponseRequest"],
    [messageRequestSchema, "MessageRequest"],
    [imageGenerationRequestSchema, "ImageGenerationRequest"],
    [countTokensRequestSchema, "CountTokensRequest"],
    [embeddingRequestSchema, "EmbeddingRequest"],
    [z.strictObject({ code: z.string().describe("The redemption code, `rc_...`.") }), "RedeemRequest"],
    ...storedStateSchemas.input,
    ...geminiSchemas.input,
  ],
  output: [
    [discoverySchema, "Discovery"],
    [modelSchema, "Model"],
    [modelListSchema, "ModelList"],
    [chatCompletionSchema, "ChatCompletion"],
    [responseSchema, "Response"],
    [messageSchema, "Message"],
    [imagesResponseSchema, "ImagesResponse"],
    [countTokensSchema, "TokenCount"],
    [embeddingListSchema, "EmbeddingList"],
    [
      z.object({
        object: z.literal("redemption"),
        amount: z.string().describe("USD credited."),
        balance: z.string().describe("The customer's wallet balance after it, USD."),
      }),
      "Redemption",
    ],
    ...storedStateSchemas.output,
    ...geminiSchemas.output,
  ],
};

/** Either header, on any endpoint: current Anthropic SDKs send the bearer, older ones `x-api-key`; Google's clients their own forms. */
export const apiKeySchemes = {
  apiKey: { type: "http", scheme: "bearer", bearerFormat: "sk-...", description: "An API key, `Authorization: Bearer sk-...`." },
  apiKeyHeader: { type: "apiKey", in: "header", name: "x-api-key", description: "The same API key as `x-api-key: sk-...`." },
  ...googleKeySchemes,
};

const VERSION_DATE = { type: "string", pattern: "^\\d{4}-\\d{2}-\\d{2}$", examples: ["2023-06-01"] };
const messagesHeaders = [
  { name: "anthropic-version", in: "header", required: false, description: "Any YYYY-MM-DD, forwarded as given to Anthropic-shape upstreams; absent means 2023-06-01; another form is a 400.", schema: VERSION_DATE },
  { name: "shapeb-version", in: "header", required: false, description: "The same as `anthropic-version`, under the gateway's own name.", schema: VERSION_DATE },
  { name: "anthropic-beta", in: "header", required: false, description: "Forwarded to Anthropic-shape upstreams (minus the upstream's `drop_betas`); never sent cross-shape.", schema: { type: "string" } },
];

const RELAY_ERRORS = ["400", "401", "403", "404", "413", "415", "429", "500", "502", "503", "504"];

/** A model answer: the native JSON body, or with `stream: true` the native events. */
function answer(schemaId: string, events: string | null): JsonObject {
  const json = jsonResponse(schemaId, "The native answer (translated when the model's upstream speaks the other shape).", { headers: modelAnswerHeaders });
  if (!events) return json;
  const stream = { schema: { type: "string", description: `With \`stream: true\`: ${events}` } };
  return { ...json, description: `${json.description as string} With \`stream: true\`, a \`text/event-stream\`.`, content: { ...(json.content as JsonObject), "text/event-stream": stream } };
}

function relay(operationId: string, summary: string, requestId: string, responseId: string, events: string | null, extra: JsonObject = {}): JsonObject {
  return operation(operationId, summary, { ...extra, requestBody: jsonRequestBody(requestId, true), responses: { "200": answer(responseId, events), ...errorResponses(...RELAY_ERRORS) } });
}

const LATE_FAILURE = "A failure after the first event ends the stream with one error event instead of a status code.";

export function modelApiPaths(): Record<string, JsonObject> {
  return {
    "/v1": {
      get: operation("getDiscovery", "What this gateway serves, and whether it can serve now", {
        security: [],
        responses: { "200": jsonResponse("Discovery", "The discovery object.", { headers: requestIdHeader }) },
      }),
    },
    "/v1/models": {
      get: operation("listModels", "The models your key may call", {
        responses: { "200": jsonResponse("ModelList", "Every model the key's server option allows, in one page.", { headers: requestIdHeader }), ...errorResponses("401", "500", "503") },
      }),
    },
    "/v1/models/{id}": {
      get: operation("getModel", "One model your key may call", {
        parameters: [{ name: "id", in: "path", required: true, description: "The public model name (it may hold slashes).", schema: { type: "string" } }],
        responses: { "200": jsonResponse("Model", "The model.", { headers: requestIdHeader }), ...errorResponses("401", "404", "500", "503") },
      }),
    },
    "/v1/usage": {
      get: operation("getUsage", "Your key's quota and consumption", {
        parameters: queryParameters(usageQuerySchema),
        responses: { "200": jsonResponse("KeyUsage", "Consumption is visible here within 2 s of a request's end.", { headers: requestIdHeader }), ...errorResponses("400", "401", "500", "503") },
      }),
    },
    "/v1/chat/completions": {
      post: relay("createChatCompletion", "OpenAI Chat Completions", "ChatCompletionRequest", "ChatCompletion", `\`chat.completion.chunk\` data lines ending in \`data: [DONE]\`. ${LATE_FAILURE}`),
    },
    "/v1/responses": {
      get: operation("connectResponsesWebSocket", "Responses over WebSocket", {
        description:
          "With `Upgrade: websocket` (Codex's built-in provider, `OpenAI-Beta: responses_websockets=...`): each client frame `{\"type\": \"response.create\", ...}` runs as `POST /v1/responses` with `stream: true` and its `response.*` events come back as JSON text frames; several responses per socket, `previous_response_id` across them, each billed once. A bad or refused frame gets an `error` frame; a frame over the body limit closes the socket with 1009. Without the upgrade, an unknown route.",
        parameters: [{ name: "Upgrade", in: "header", required: false, description: "`websocket`.", schema: { type: "string" } }],
        responses: { "101": { description: "Switching Protocols: the socket is open." }, ...errorResponses("401", "404", "503") },
      }),
      post: relay("createResponse", "OpenAI Responses", "ResponseRequest", "Response", `\`response.*\` events. ${LATE_FAILURE}`),
    },
    "/v1/responses/input_tokens": {
      post: operation("countResponseInputTokens", "Responses input token counting", {
        description:
          "A Responses request body (its `previous_response_id` or `conversation` resolved) counted by the gateway like `/v1/messages/count_tokens` counts on an OpenAI-shape model: `{\"object\": \"response.input_tokens\", \"input_tokens\": N}`. Not billed; counts toward the key's requests per minute.",
        requestBody: jsonRequestBody("ResponseRequest", true),
        responses: { "200": jsonResponse("TokenCount", "The gateway's count.", { headers: requestIdHeader }), ...errorResponses("400", "401", "404", "413", "429", "500", "503") },
      }),
    },
    "/v1/messages": {
      post: relay("createMessage", "Anthropic Messages", "MessageRequest", "Message", `\`message_start\`, \`content_block_*\`, \`ping\`, \`message_delta\`, \`message_stop\` events. ${LATE_FAILURE}`, {
        parameters: messagesHeaders,
      }),
    },
    "/v1/images/generations": {
      post: relay("createImage", "OpenAI image generation", "ImageGenerationRequest", "ImagesResponse", null),
    },
    "/v1/messages/count_tokens": {
      post: operation("countMessageTokens", "Anthropic token counting", {
        description:
          "Forwarded to the model's Anthropic-shape upstream; for a model served by OpenAI-shape upstreams, counted by the gateway on the translated request with the model family's tokenizer. Not billed; counts toward the key's requests per minute. `?beta=true` is accepted.",
        parameters: [...messagesHeaders, { name: "beta", in: "query", required: false, description: "Sent by the Anthropic SDK's beta client; ignored.", schema: { type: "string" } }],
        requestBody: jsonRequestBody("CountTokensRequest", true),
        responses: { "200": jsonResponse("TokenCount", "The upstream's count, or the gateway's.", { headers: modelAnswerHeaders }), ...errorResponses(...RELAY_ERRORS) },
      }),
    },
    "/v1/redeem": {
      post: operation("redeemCode", "Redeem a code into your customer's wallet", {
        description:
          "Credits the code's amount to the wallet of the customer the key belongs to, once: a used, expired or unknown code is a 400 `code_invalid`; a key without a customer is a 400 `customer_required` and leaves the code unused.",
        requestBody: jsonRequestBody("RedeemRequest", true),
        responses: { "200": jsonResponse("Redemption", "The amount credited and the balance after it.", { headers: requestIdHeader }), ...errorResponses("400", "401", "500", "503") },
      }),
    },
    "/v1/embeddings": {
      post: operation("createEmbedding", "OpenAI embeddings", {
        description: "Relayed to the model's OpenAI-shape upstreams, billed at the model's input price; a model without one is a 400 naming `model`.",
        requestBody: jsonRequestBody("EmbeddingRequest", true),
        responses: { "200": jsonResponse("EmbeddingList", "The upstream's answer as it came.", { headers: modelAnswerHeaders }), ...errorResponses(...RELAY_ERRORS) },
      }),
    },
    ...storedStatePaths(),
    ...geminiPaths(),
  };
}
