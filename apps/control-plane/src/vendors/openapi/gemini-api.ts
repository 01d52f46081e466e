import { z } from "zod";
import { jsonRequestBody, jsonResponse, type JsonObject, type NamedSchemas } from "./json-schema.ts";
import { operation, pathParameter } from "./model-operation.ts";
import { googleErrorResponses, modelAnswerHeaders, requestIdHeader } from "./responses.ts";

/**
 * The Gemini API for `@google/genai` and Gemini CLI (contract section 16; apps/proxy/src/routes/gemini.ts):
 * under `/v1beta` and, for the methods, `/v1` (the SDK's 3.x default), on any model whatever its
 * upstream. Bodies loosely, with Google's main fields (ai.google.dev/api); errors in Google's envelope.
 */

/** The key as Google's clients send it; `Authorization: Bearer` and `x-api-key` are taken too. */
export const googleKeySchemes = {
  googleApiKey: { type: "apiKey", in: "header", name: "x-goog-api-key", description: "The API key `sk-...` as `@google/genai` and Gemini CLI send it." },
  googleKeyQuery: { type: "apiKey", in: "query", name: "key", description: "The API key as `?key=sk-...`, Google's REST form." },
};
const GOOGLE_KEYED = [{ googleApiKey: [] }, { googleKeyQuery: [] }, { apiKey: [] }, { apiKeyHeader: [] }];

const passThrough = "Every other field passes to a Gemini-shape upstream as it is; toward another shape, what it cannot express is dropped (listed in `x-gateway-dropped-params`) or refused.";
const part = z.looseObject({ text: z.string().optional(), thought: z.boolean().optional() }).describe("text, inlineData, functionCall, functionResponse, ... (`thought: true`: reasoning).");
const content = z.looseObject({ role: z.string().optional().describe("`user` or `model`."), parts: z.array(part) });
const usageMetadata = z.looseObject({
  promptTokenCount: z.number().int(),
  candidatesTokenCount: z.number().int().optional(),
  thoughtsTokenCount: z.number().int().optional(),
  cachedContentTokenCount: z.number().int().optional(),
  totalTokenCount: z.number().int(),
});

const generateContentRequestSchema = z
  .looseObject({
    contents: z.array(content).describe("The conversation."),
    systemInstruction: content.optional(),
    tools: z.array(z.looseObject({})).optional().describe("functionDeclarations, googleSearch, ..."),
    toolConfig: z.looseObject({}).optional(),
    generationConfig: z
      .looseObject({
        maxOutputTokens: z.number().int().min(1).optional().describe("The output bound; the model's maximum when absent."),
        temperature: z.number().optional(),
        topP: z.number().optional(),
        topK: z.number().optional(),
        stopSequences: z.array(z.string()).optional(),
        responseMimeType: z.string().optional(),
        thinkingConfig: z.looseObject({}).optional(),
      })
      .optional(),
    safetySettings: z.array(z.looseObject({})).optional(),
  })
  .describe(`A Gemini generateContent request (the model is the URL's). ${passThrough}`);

const generateContentResponseSchema = z.looseObject({
  candidates: z.array(z.looseObject({ content: content.optional(), finishReason: z.string().optional().describe("STOP, MAX_TOKENS, SAFETY, ...; on the last chunk of a stream."), index: z.number().int().optional() })).optional(),
  promptFeedback: z.looseObject({ blockReason: z.string().optional() }).optional(),
  usageMetadata: usageMetadata.optional(),
  modelVersion: z.string().optional(),
  responseId: z.string().optional(),
});

const embedRequest = z.looseObject({
  model: z.string().optional().describe("`models/{model}`; in a batch, each request's."),
  content,
  taskType: z.string().optional(),
  title: z.string().optional(),
  outputDimensionality: z.number().int().min(1).optional(),
});
const embedding = z.looseObject({ values: z.array(z.number()) });

const googleModelSchema = z.looseObject({
  name: z.string().describe("`models/{model}`."),
  baseModelId: z.string(),
  version: z.string(),
  displayName: z.string(),
  description: z.string(),
  inputTokenLimit: z.number().int(),
  outputTokenLimit: z.number().int(),
  supportedGenerationMethods: z.array(z.string()),
  thinking: z.boolean(),
});

/** Google's error envelope (apps/proxy/src/shapes/gemini/errors.ts), on every Gemini route. */
const googleErrorSchema = z
  .object({
    error: z.object({
      code: z.number().int().describe("The HTTP status."),
      message: z.string(),
      status: z.string().describe("Google's status name: INVALID_ARGUMENT, UNAUTHENTICATED, PERMISSION_DENIED, NOT_FOUND, RESOURCE_EXHAUSTED, INTERNAL, UNAVAILABLE, DEADLINE_EXCEEDED, ..."),
      details: z
        .array(z.looseObject({ "@type": z.string() }))
        .describe("An ErrorInfo whose `reason` is the gateway's error code upper-cased (API_KEY_INVALID for an unknown key), with `metadata.request_id` and `metadata.param`; a RetryInfo (`retryDelay`) when the client should wait."),
    }),
  })
  .describe("Google's error envelope, on the Gemini routes only (every other route answers `Error`).");

export const geminiSchemas: { input: NamedSchemas; output: NamedSchemas } = {
  input: [
    [generateContentRequestSchema, "GenerateContentRequest"],
    [z.looseObject({ contents: z.array(content).optional(), generateContentRequest: generateContentRequestSchema.optional() }).describe("`contents`, or a whole `generateContentRequest`."), "GeminiCountTokensRequest"],
    [embedRequest.describe("One text to embed (its parts' texts)."), "EmbedContentRequest"],
    [z.looseObject({ requests: z.array(embedRequest).min(1).max(100) }), "BatchEmbedContentsRequest"],
  ],
  output: [
    [generateContentResponseSchema, "GenerateContentResponse"],
    [z.object({ totalTokens: z.number().int().min(0) }), "GeminiTokenCount"],
    [z.looseObject({ embedding }), "EmbedContentResponse"],
    [z.looseObject({ embeddings: z.array(embedding) }), "BatchEmbedContentsResponse"],
    [googleModelSchema, "GeminiModel"],
    [z.object({ models: z.array(googleModelSchema).describe("Exactly the models the key's server option allows.") }), "GeminiModelList"],
    [googleErrorSchema, "GoogleError"],
  ],
};

const RELAY_ERRORS = ["400", "401", "403", "404", "413", "415", "429", "500", "502", "503", "504"];

function geminiOperation(operationId: string, summary: string, rest: JsonObject): JsonObject {
  return operation(operationId, summary, { security: GOOGLE_KEYED, ...rest });
}

/** One POST method on `/v1beta/models/{model}:{method}` and `/v1/models/{model}:{method}`. */
function method(name: string, summary: string, requestId: string, answer: JsonObject, extra: JsonObject = {}): Record<string, JsonObject> {
  const paths: Record<string, JsonObject> = {};
  for (const version of ["v1beta", "v1"]) {
    paths[`/${version}/models/{model}:${name}`] = {
      post: geminiOperation(`${name}${version === "v1" ? "V1" : ""}`, `${summary}${version === "v1" ? " (`/v1`, @google/genai 3.x)" : ""}`, {
        ...extra,
        parameters: [pathParameter("model", "The model name (a leading `models/` is taken too)."), ...((extra.parameters as JsonObject[] | undefined) ?? [])],
        requestBody: jsonRequestBody(requestId, true),
        responses: { "200": answer, ...googleErrorResponses(...RELAY_ERRORS) },
      }),
    };
  }
  return paths;
}

export function geminiPaths(): Record<string, JsonObject> {
  const answer = (schemaId: string, description: string) => jsonResponse(schemaId, description, { headers: modelAnswerHeaders });
  const stream = {
    description: "A `text/event-stream`: each `data:` line one GenerateContentResponse, `usageMetadata` and `finishReason` on the last, no `[DONE]`. A failure after the first event ends the stream with one error event in Google's envelope.",
    headers: modelAnswerHeaders,
    content: { "text/event-stream": { schema: { type: "string" } } },
  };
  return {
    "/v1beta/models": {
      get: geminiOperation("listGeminiModels", "The models your key may call, in Google's list form", {
        responses: { "200": jsonResponse("GeminiModelList", "Every model the key's server option allows, in one page.", { headers: requestIdHeader }), ...googleErrorResponses("400", "401", "500", "503") },
      }),
    },
    "/v1beta/models/{model}": {
      get: geminiOperation("getGeminiModel", "One model your key may call, in Google's form", {
        parameters: [pathParameter("model", "The model name (a leading `models/` is taken too).")],
        responses: { "200": jsonResponse("GeminiModel", "The model.", { headers: requestIdHeader }), ...googleErrorResponses("400", "401", "404", "500", "503") },
      }),
    },
    ...method("generateContent", "Gemini generateContent", "GenerateContentRequest", answer("GenerateContentResponse", "The answer (translated when the model's upstream speaks another shape).")),
    ...method("streamGenerateContent", "Gemini streamGenerateContent", "GenerateContentRequest", stream, {
      parameters: [{ name: "alt", in: "query", required: false, description: "`sse`, as the SDKs send it; the answer is always server-sent events.", schema: { type: "string", enum: ["sse"] } }],
    }),
    ...method("countTokens", "Gemini token counting", "GeminiCountTokensRequest", answer("GeminiTokenCount", "Forwarded to the model's Gemini-shape upstream; otherwise counted by the gateway with the model family's tokenizer. Not billed; counts toward the key's requests per minute.")),
    ...method("embedContent", "Gemini embeddings", "EmbedContentRequest", answer("EmbedContentResponse", "Relayed to a Gemini-shape upstream, or through OpenAI embeddings; billed at the model's input price. An Anthropic-shape model is a 400 naming `model`.")),
    ...method("batchEmbedContents", "Gemini embeddings, several at once", "BatchEmbedContentsRequest", answer("BatchEmbedContentsResponse", "One embedding per request, in order; billed as embedContent.")),
  };
}
