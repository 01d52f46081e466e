import type { ErrorEnvelope } from "./types.ts";

/**
 * A failed vendor API call, carrying the envelope (contract section 2) so the page can show its
 * message. Network failures and answers that are not an envelope become one too, so every error
 * the console shows reads the same.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly type: string;
  readonly code: string | null;
  readonly param: string | null;
  readonly requestId: string | null;

  constructor(status: number, envelope: ErrorEnvelope["error"], requestId: string | null) {
    super(envelope.message);
    this.name = "ApiError";
    this.status = status;
    this.type = envelope.type;
    this.code = envelope.code;
    this.param = envelope.param;
    this.requestId = requestId;
  }

  get isUnauthorized(): boolean {
    return this.status === 401;
  }

  get isMissingScope(): boolean {
    return this.status === 403 && this.code === "missing_scope";
  }
}

function isEnvelope(body: unknown): body is ErrorEnvelope {
  if (typeof body !== "object" || body === null) return false;
  const error = (body as { error?: unknown }).error;
  return typeof error === "object" && error !== null && typeof (error as { message?: unknown }).message === "string";
}

/** The error of a non-2xx answer: its envelope, or a plain description of what came back. */
export async function errorFromResponse(response: Response): Promise<ApiError> {
  const requestId = response.headers.get("x-request-id");
  const body: unknown = await response.json().catch(() => null);
  if (isEnvelope(body)) return new ApiError(response.status, body.error, body.request_id ?? requestId);
  const message = `The gateway answered ${response.status} ${response.statusText || ""}`.trim() + " without an error body.";
  return new ApiError(response.status, { type: "api_error", message, code: null, param: null }, requestId);
}

export function networkError(cause: unknown): ApiError {
  const detail = cause instanceof Error ? ` (${cause.message})` : "";
  return new ApiError(0, { type: "network_error", message: `The gateway could not be reached${detail}.`, code: null, param: null }, null);
}

/** Whatever a call threw, as a message for the page. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
