import { jsonResponse, type JsonObject } from "./json-schema.ts";

/**
 * What `/v1` and `/api` answer alike: the one error envelope (contract section 2) as response
 * components `Error400`... `Error504`, whose descriptions name the `error.code` values a client can
 * branch on, and the headers every response carries.
 */
const ERRORS: Record<string, string> = {
  "400": "`invalid_request_error`: malformed JSON, a wrong field type, a missing field or a bad header (`param` names it).",
  "401": "`authentication_error`: no key or vendor token, or an unknown, revoked, expired or disabled (`key_disabled`) one.",
  "402": "`insufficient_quota`: a prepaid customer's balance does not cover a plan's price (`insufficient_balance`); credit its wallet first.",
  "403": "`permission_error`: the key may not call this model, the vendor token lacks the scope (`missing_scope`) or the server option is not yours (`server_option_not_allowed`).",
  "404": "`not_found_error`: unknown model (`model_not_found`), unknown route (`route_not_found`) or unknown id (`not_found`).",
  "409": "`invalid_request_error`: the Idempotency-Key was used with a different body (`idempotency_conflict`).",
  "413": "`request_too_large`: the body is over the size limit.",
  "415": "`invalid_request_error`: the body is not application/json.",
  "429": "`rate_limit_error` (RPM or TPM limit; wait `retry-after` seconds) or `insufficient_quota` (`insufficient_quota`, `budget_exceeded`).",
  "500": "`api_error`: internal fault.",
  "502": "`api_error`: every upstream failed before the first byte (`upstream_error`).",
  "503": "`overloaded_error`: the gateway is overloaded or a dependency is down; nothing was changed. Retry after `retry-after` seconds when given.",
  "504": "`api_error`: the upstream timed out (`upstream_timeout`).",
};

export const RESPONSE_HEADERS: Record<string, JsonObject> = {
  RequestId: { description: "`req_...`, the same value as the envelope's `request_id`.", schema: { type: "string" } },
  RetryAfter: { description: "Seconds to wait before trying again.", schema: { type: "integer", minimum: 0 } },
  DroppedParams: { description: "Request fields dropped because the upstream's shape cannot express them (only when some were), comma-separated paths.", schema: { type: "string" } },
  ShouldRetry: { description: "`false` once the gateway's own retries and failover are spent: the SDKs must not retry on top.", schema: { type: "string", enum: ["true", "false"] } },
};

const header = (id: string) => ({ $ref: `#/components/headers/${id}` });

function errorHeaders(status: string): JsonObject {
  const retryAfter = status === "429" || status === "503" ? { "retry-after": header("RetryAfter") } : {};
  return { headers: { "x-request-id": header("RequestId"), ...retryAfter, "x-should-retry": header("ShouldRetry") } };
}

/** The Gemini routes' errors: the same causes, in Google's envelope `GoogleError` (its status name after the HTTP status). */
const GOOGLE_ERRORS: Record<string, string> = {
  "400": "INVALID_ARGUMENT: a bad body or field, or an unknown, revoked or expired key (ErrorInfo reason API_KEY_INVALID), as Google answers one.",
  "401": "UNAUTHENTICATED: no key.",
  "403": "PERMISSION_DENIED: the key may not call this model.",
  "404": "NOT_FOUND: unknown model or route.",
  "413": "INVALID_ARGUMENT: the body is over the size limit.",
  "415": "INVALID_ARGUMENT: the body is not application/json.",
  "429": "RESOURCE_EXHAUSTED: a rate limit (a RetryInfo says how long to wait) or the key's quota or budget.",
  "500": "INTERNAL: internal fault.",
  "502": "UNAVAILABLE: every upstream failed before the first byte.",
  "503": "UNAVAILABLE: the gateway is overloaded or a dependency is down; nothing was changed.",
  "504": "DEADLINE_EXCEEDED: the upstream timed out.",
};

/** `components.responses`: ErrorNNN, each the `Error` schema, and GoogleErrorNNN, each `GoogleError`. */
export function errorResponseComponents(): Record<string, JsonObject> {
  return {
    ...Object.fromEntries(Object.entries(ERRORS).map(([status, description]) => [`Error${status}`, jsonResponse("Error", description, errorHeaders(status))])),
    ...Object.fromEntries(Object.entries(GOOGLE_ERRORS).map(([status, description]) => [`GoogleError${status}`, jsonResponse("GoogleError", description, errorHeaders(status))])),
  };
}

/** The Gemini routes' error responses (components/responses/GoogleErrorNNN) by status. */
export function googleErrorResponses(...statuses: string[]): JsonObject {
  return Object.fromEntries(statuses.map((status) => [status, { $ref: `#/components/responses/GoogleError${status}` }]));
}

/** The `x-request-id` header every response carries, for success responses. */
export const requestIdHeader = { "x-request-id": header("RequestId") };

/** A model answer's headers: its request id, and what a cross-shape translation dropped. */
export const modelAnswerHeaders = { ...requestIdHeader, "x-gateway-dropped-params": header("DroppedParams") };
