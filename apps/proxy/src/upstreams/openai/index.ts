import type { UpstreamShapeAdapter } from "../types.ts";
import { providerErrorMessage } from "../provider-error.ts";

export { chatCompletions } from "./chat-completions.ts";
export { responses } from "./responses.ts";
export { imagesGenerations } from "./images-generations.ts";
export { embeddings } from "./embeddings.ts";

/** OpenAI-shape upstreams: Bearer auth. */
export const openaiAdapter: UpstreamShapeAdapter = {
  shape: "openai",
  headers(secret) {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (secret) headers.authorization = `Bearer ${secret}`;
    return headers;
  },
  errorMessage: providerErrorMessage,
};
