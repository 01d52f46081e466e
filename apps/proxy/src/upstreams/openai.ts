import type { UpstreamShapeAdapter } from "./shape-adapter.ts";
import { providerErrorMessage } from "../core/provider-error.ts";

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
