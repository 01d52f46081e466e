import type { UpstreamShapeAdapter } from "./shape-adapter.ts";
import { providerErrorMessage } from "../core/provider-error.ts";

export const DEFAULT_ANTHROPIC_VERSION = "2023-06-01";

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Anthropic-shape upstreams: `x-api-key` plus the version header the client chose. */
export const anthropicAdapter: UpstreamShapeAdapter = {
  shape: "anthropic",
  headers(secret, clientHeaders) {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "anthropic-version": single(clientHeaders["anthropic-version"]) ?? single(clientHeaders["shapeb-version"]) ?? DEFAULT_ANTHROPIC_VERSION,
    };
    const beta = single(clientHeaders["anthropic-beta"]);
    if (beta) headers["anthropic-beta"] = beta;
    if (secret) headers["x-api-key"] = secret;
    return headers;
  },
  errorMessage: providerErrorMessage,
};
