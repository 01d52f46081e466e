import { z } from "zod";

/**
 * The API shapes, declared once (contract sections 7 and 16): the dialect an upstream speaks
 * (`upstreams[].shape` in the gateway file) and the client APIs the gateway answers in (GET /v1's
 * `compatible_with`). The zod enums of the gateway file and the Redis records, the database's
 * `UPSTREAM_SHAPES`, the proxy's `Shape` and its table of shape adapters all derive from this list:
 * a new shape is one line here, and the compiler then names every table that lacks it.
 */
export const SHAPES = ["openai", "anthropic", "gemini", "bedrock-converse"] as const;
export type Shape = (typeof SHAPES)[number];
/**
 * The shapes clients speak (GET /v1's `compatible_with`) and the gateway file names as `shape`:
 * `bedrock-converse` is upstream only, reached as `shape: bedrock` with `api: converse`.
 */
export const CLIENT_SHAPES = ["openai", "anthropic", "gemini"] as const satisfies readonly Shape[];
export const clientShapeSchema = z.enum(CLIENT_SHAPES);
export const shapeSchema = z.enum(SHAPES);

/**
 * The model endpoints, by the names the billing event records (`messages.count_tokens` is never
 * billed; listed so the one name list holds). The proxy's `EndpointName` and its wire formats
 * (`WIRE_FORMATS`, one per name) derive from this list.
 */
export const MODEL_ENDPOINTS = [
  "chat.completions",
  "messages",
  "responses",
  "images.generations",
  "embeddings",
  "messages.count_tokens",
  // The Gemini API (contract section 16): generateContent and streamGenerateContent, countTokens (never
  // billed), embedContent and batchEmbedContents.
  "gemini.generate_content",
  "gemini.count_tokens",
  "gemini.embed_content",
] as const;
export type EndpointName = (typeof MODEL_ENDPOINTS)[number];
export const endpointSchema = z.enum(MODEL_ENDPOINTS);
