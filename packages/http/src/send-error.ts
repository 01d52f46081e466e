import type { Response } from "express";
import { toEnvelope, type GatewayError } from "@gateway/contracts";

/**
 * Writes the one envelope. Once our own retries and failover are spent the SDKs must not retry
 * on top (`x-should-retry: false`), or upstream load multiplies.
 */
export function sendError(response: Response, error: GatewayError, requestId: string): void {
  if (response.headersSent) {
    response.end();
    return;
  }
  if (error.retryAfter !== null) response.setHeader("retry-after", String(error.retryAfter));
  if (error.status >= 500 || error.code === "insufficient_quota") response.setHeader("x-should-retry", "false");
  response.status(error.status).json(toEnvelope(error, requestId));
}
