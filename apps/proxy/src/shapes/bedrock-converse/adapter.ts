import type { UpstreamShapeAdapter } from "../../upstreams/shape-adapter.ts";
import { providerErrorMessage } from "../../core/provider-error.ts";

/**
 * Bedrock Converse upstreams: no key header (the bedrock transport signs every call with SigV4),
 * and error bodies already in the envelope the transport writes (`error.message`).
 */
export const converseAdapter: UpstreamShapeAdapter = {
  shape: "bedrock-converse",
  headers: () => ({ "content-type": "application/json" }),
  errorMessage: providerErrorMessage,
};
