import type { JsonObject } from "./json-schema.ts";

/**
 * What every model API operation shares: its tag and the API key it takes (either header, on any
 * endpoint: current Anthropic SDKs send the bearer, older ones `x-api-key`).
 */
export const MODELS_TAG = {
  name: "models",
  description: "The model API, for the official OpenAI, Anthropic and Google Gen AI SDKs and curl. Authenticated with an API key `sk-...`.",
};

export const KEYED = [{ apiKey: [] }, { apiKeyHeader: [] }];

/** A model API operation; `rest` may set its own `security`. */
export function operation(operationId: string, summary: string, rest: JsonObject): JsonObject {
  return { operationId, summary, tags: [MODELS_TAG.name], security: KEYED, ...rest };
}

/** A path parameter, a plain string. */
export function pathParameter(name: string, description: string): JsonObject {
  return { name, in: "path", required: true, description, schema: { type: "string" } };
}
