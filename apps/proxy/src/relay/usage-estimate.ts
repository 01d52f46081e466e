import type { Usage } from "@gateway/contracts";

/**
 * The flagged estimate used only when the upstream never reported usage (a stream cut or a client
 * that left): about four bytes of request per input token, one token per relayed content event.
 */
export function estimateUsage(requestBytes: number, contentEvents: number): Usage {
  return {
    inputTokens: Math.ceil(requestBytes / 4),
    outputTokens: contentEvents,
    cachedInputTokens: 0,
    cacheWriteTokens: 0,
    cacheWrite1hTokens: 0,
    reasoningTokens: 0,
    images: 0,
    webSearchRequests: 0,
  };
}
