import type { UpstreamShapeAdapter } from "./shape-adapter.ts";
import { providerErrorMessage } from "../core/provider-error.ts";

/**
 * Gemini-shape upstreams (Google AI Studio, `base_url` ending in `/v1beta`): the key in
 * `x-goog-api-key`, as `@google/genai` sends it; never in the URL, where logs and traces keep it.
 */
export const geminiAdapter: UpstreamShapeAdapter = {
  shape: "gemini",
  headers(secret) {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (secret) headers["x-goog-api-key"] = secret;
    return headers;
  },
  // Google nests it at `error.message` too.
  errorMessage: providerErrorMessage,
};
