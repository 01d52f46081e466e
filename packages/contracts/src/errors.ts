/**
 * The one error type of the gateway and the one envelope it renders to (contract section 2).
 * Every error path in every app ends in `toEnvelope`.
 */
export type ErrorCode =
  | "invalid_body"
  | "invalid_json"
  | "invalid_header"
  | "unsupported_media_type"
  | "request_too_large"
  | "request_timeout"
  | "invalid_api_key"
  | "invalid_vendor_token"
  | "key_disabled"
  | "key_revoked"
  | "budget_exceeded"
  | "balance_exhausted"
  | "plan_limit_exceeded"
  | "model_not_allowed"
  | "missing_scope"
  | "server_option_not_allowed"
  | "model_not_found"
  | "route_not_found"
  | "not_found"
  | "idempotency_conflict"
  | "rate_limit_exceeded"
  | "insufficient_quota"
  | "internal_error"
  | "upstream_error"
  | "dependency_unavailable"
  | "control_plane_unavailable"
  | "upstream_timeout"
  | "unsupported_feature"
  | "websocket_not_supported"
  | "previous_response_not_found"
  | "code_invalid"
  | "customer_required"
  | "invalid_signature"
  | "payments_not_configured"
  | "payment_provider_error"
  | "insufficient_balance"
  | "upstream_rejected";

type ErrorType =
  | "invalid_request_error"
  | "authentication_error"
  | "permission_error"
  | "not_found_error"
  | "request_too_large"
  | "rate_limit_error"
  | "insufficient_quota"
  | "api_error"
  | "overloaded_error";

const CATALOG: Record<ErrorCode, { status: number; type: ErrorType }> = {
  invalid_body: { status: 400, type: "invalid_request_error" },
  invalid_json: { status: 400, type: "invalid_request_error" },
  invalid_header: { status: 400, type: "invalid_request_error" },
  unsupported_feature: { status: 400, type: "invalid_request_error" },
  /** The upstream refused the request as invalid (its own 400/422); never retried elsewhere. */
  upstream_rejected: { status: 400, type: "invalid_request_error" },
  unsupported_media_type: { status: 415, type: "invalid_request_error" },
  /** A used, expired or unknown redemption code: one answer for all three, so codes cannot be probed (contract section 19). */
  code_invalid: { status: 400, type: "invalid_request_error" },
  /** A redemption with a key that belongs to no customer: no wallet to credit. */
  customer_required: { status: 400, type: "invalid_request_error" },
  /** A payment provider's webhook whose signature does not verify. */
  invalid_signature: { status: 400, type: "invalid_request_error" },
  /** STRIPE_SECRET_KEY (or the webhook secret) is not set on the control plane. */
  payments_not_configured: { status: 503, type: "overloaded_error" },
  /** A prepaid customer's wallet cannot pay a plan's price (subscribing): 402, as OpenRouter answers for missing credits. */
  insufficient_balance: { status: 402, type: "insufficient_quota" },
  /** The payment provider refused or did not answer; nothing was charged. */
  payment_provider_error: { status: 502, type: "api_error" },
  /** `GET /v1/responses` with `Upgrade: websocket` (Codex's first try): 426 makes it fall back to HTTP at once (contract section 15). */
  websocket_not_supported: { status: 426, type: "invalid_request_error" },
  /** An unknown, deleted, expired or other vendor's `previous_response_id` (contract section 18), as OpenAI answers it. */
  previous_response_not_found: { status: 400, type: "invalid_request_error" },
  request_too_large: { status: 413, type: "request_too_large" },
  /** The client paused its request body longer than the gateway waits between two chunks. */
  request_timeout: { status: 408, type: "invalid_request_error" },
  invalid_api_key: { status: 401, type: "authentication_error" },
  invalid_vendor_token: { status: 401, type: "authentication_error" },
  /** A key its vendor paused (PATCH status "disabled"); it works again once active. */
  key_disabled: { status: 401, type: "authentication_error" },
  /** A key revoked (or a secret rotated away) while its request ran: its open streams end with it (contract section 14). */
  key_revoked: { status: 401, type: "authentication_error" },
  model_not_allowed: { status: 403, type: "permission_error" },
  missing_scope: { status: 403, type: "permission_error" },
  server_option_not_allowed: { status: 403, type: "permission_error" },
  model_not_found: { status: 404, type: "not_found_error" },
  route_not_found: { status: 404, type: "not_found_error" },
  not_found: { status: 404, type: "not_found_error" },
  idempotency_conflict: { status: 409, type: "invalid_request_error" },
  rate_limit_exceeded: { status: 429, type: "rate_limit_error" },
  insufficient_quota: { status: 429, type: "insufficient_quota" },
  /** The key's periodic budget is spent for the current day/week/month (contract section 9). */
  budget_exceeded: { status: 429, type: "insufficient_quota" },
  /** A prepaid customer's wallet is spent: its keys wait for a credit (contract section 19). */
  balance_exhausted: { status: 429, type: "insufficient_quota" },
  /** A window of the customer's plan is full; `retry-after` says when it frees (contract section 19). */
  plan_limit_exceeded: { status: 429, type: "rate_limit_error" },
  internal_error: { status: 500, type: "api_error" },
  upstream_error: { status: 502, type: "api_error" },
  dependency_unavailable: { status: 503, type: "overloaded_error" },
  /** The proxy could not reach the control plane behind /api and /console (it is down or slow). */
  control_plane_unavailable: { status: 503, type: "overloaded_error" },
  upstream_timeout: { status: 504, type: "api_error" },
};

export interface ErrorEnvelope {
  type: "error";
  error: { type: string; message: string; code: string | null; param: string | null };
  request_id: string;
}

export class GatewayError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly type: ErrorType;
  readonly param: string | null;
  /** Seconds, sent as `retry-after` (rate limits). */
  readonly retryAfter: number | null;

  constructor(code: ErrorCode, message: string, options: { param?: string | null; retryAfter?: number | null; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = "GatewayError";
    this.code = code;
    this.status = CATALOG[code].status;
    this.type = CATALOG[code].type;
    this.param = options.param ?? null;
    this.retryAfter = options.retryAfter ?? null;
  }
}

/** Anything thrown becomes a GatewayError; unknown faults are a 500 with a generic message. */
export function asGatewayError(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  return new GatewayError("internal_error", "The gateway hit an internal error.", { cause: error });
}

export function toEnvelope(error: GatewayError, requestId: string): ErrorEnvelope {
  return {
    type: "error",
    error: { type: error.type, message: error.message, code: error.code, param: error.param },
    request_id: requestId,
  };
}
