import type { ServerResponse } from "node:http";
import { asGatewayError, GatewayError } from "@gateway/contracts";
import { sendJson } from "@gateway/http";
import type { Logger } from "@gateway/logger";
import { sseFrame } from "../../core/sse.ts";

/** Google's status names by HTTP status (ai.google.dev/gemini-api/docs/troubleshooting). */
const STATUS_NAMES: Readonly<Record<number, string>> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  402: "RESOURCE_EXHAUSTED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  408: "DEADLINE_EXCEEDED",
  409: "ABORTED",
  413: "INVALID_ARGUMENT",
  415: "INVALID_ARGUMENT",
  429: "RESOURCE_EXHAUSTED",
  499: "CANCELLED",
  500: "INTERNAL",
  501: "UNIMPLEMENTED",
  502: "UNAVAILABLE",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};

/** Google's status name for an HTTP status (4xx it does not name: INVALID_ARGUMENT; 5xx: INTERNAL). */
export function googleStatus(status: number): string {
  return STATUS_NAMES[status] ?? (status >= 500 ? "INTERNAL" : "INVALID_ARGUMENT");
}

/**
 * Google answers a key it does not know with 400 INVALID_ARGUMENT and the ErrorInfo reason
 * API_KEY_INVALID (contract section 16): the gateway's `invalid_api_key` (401 elsewhere) says it
 * that way on the Gemini routes, so Gemini CLI and `@google/genai` read it as they read Google's.
 */
function httpStatus(error: GatewayError): number {
  return error.code === "invalid_api_key" ? 400 : error.status;
}

/**
 * The gateway's error in Google's envelope, `{"error":{"code","message","status","details"}}`: the
 * HTTP status as `code`, Google's status name, and an ErrorInfo whose reason is the gateway's own
 * code (upper-cased; API_KEY_INVALID for an unknown key) with the request id and the field named;
 * a RetryInfo when the client should wait (Gemini CLI honours `retryDelay`).
 */
export function googleErrorBody(error: GatewayError, requestId: string): Record<string, unknown> {
  const code = httpStatus(error);
  const invalidKey = error.code === "invalid_api_key";
  const metadata: Record<string, string> = { request_id: requestId };
  if (error.param !== null) metadata.param = error.param;
  if (invalidKey) metadata.service = "generativelanguage.googleapis.com";
  const details: Record<string, unknown>[] = [
    {
      "@type": "type.googleapis.com/google.rpc.ErrorInfo",
      reason: invalidKey ? "API_KEY_INVALID" : error.code.toUpperCase(),
      domain: invalidKey ? "googleapis.com" : "gateway",
      metadata,
    },
  ];
  if (error.retryAfter !== null) details.push({ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: `${error.retryAfter}s` });
  return { error: { code, message: error.message, status: googleStatus(code), details } };
}

/**
 * Writes the error in Google's envelope (the Gemini routes' counterpart of `respondWithError`):
 * a 5xx is logged; a response whose head is already out is ended.
 */
export function respondWithGoogleError(logger: Pick<Logger, "error">, requestId: string, path: string, response: ServerResponse, thrown: unknown): void {
  const error = asGatewayError(thrown);
  if (error.status >= 500) logger.error({ requestId, err: thrown, path }, "request failed");
  if (response.headersSent) {
    response.end();
    return;
  }
  if (error.retryAfter !== null) response.setHeader("retry-after", String(error.retryAfter));
  sendJson(response, httpStatus(error), googleErrorBody(error, requestId));
}

/**
 * The final error event of a Gemini stream (contract section 3): one `data:` line holding Google's
 * envelope, as its own event. `@google/genai` throws an ApiError on it (a read that parses as an
 * object with `error.code` 400-599); other readers see a chunk without candidates.
 */
export function geminiStreamErrorEvent(message: string, code: string, status = 500): string {
  return sseFrame(JSON.stringify({ error: { code: status, message, status: googleStatus(status), details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: code.toUpperCase(), domain: "gateway" }] } }));
}
