import type { ServerResponse } from "node:http";
import { toEnvelope, type GatewayError } from "@gateway/contracts";
import { sendJson } from "./send-json.ts";

/**
 * Writes the one envelope (plain node:http, so Express routes and the proxy's own ones share it).
 * Once our own retries and failover are spent the SDKs must not retry on top
 * (`x-should-retry: false`), or upstream load multiplies.
 */
export function sendError(response: ServerResponse, error: GatewayError, requestId: string): void {
  if (response.headersSent) {
    response.end();
    return;
  }
  if (error.retryAfter !== null) response.setHeader("retry-after", String(error.retryAfter));
  if (error.status >= 500 || error.code === "insufficient_quota" || error.code === "budget_exceeded") response.setHeader("x-should-retry", "false");
  sendJson(response, error.status, toEnvelope(error, requestId));
}
