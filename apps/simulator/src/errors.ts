/** Provider error bodies, shaped exactly as OpenAI, Anthropic and Google (Gemini API) send them. */
import type { Provider } from './types.ts';
import { newId } from './ids.ts';

export interface ErrorSpec {
  status: number;
  message: string;
  /** OpenAI `error.code` (ignored for Anthropic). */
  code?: string | null;
  /** OpenAI `error.param` (ignored for Anthropic). */
  param?: string | null;
  /** Google `error.details` (google.rpc messages with their `@type`; Gemini routes only). */
  details?: object[];
  /** Google `error.status` when it is not the one of the HTTP status (400 FAILED_PRECONDITION, ...). */
  googleStatus?: string;
}

function openaiType(status: number): string {
  if (status === 401) return 'invalid_request_error';
  if (status === 403) return 'permission_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

function anthropicType(status: number): string {
  switch (status) {
    case 401: return 'authentication_error';
    case 402: return 'billing_error';
    case 403: return 'permission_error';
    case 404: return 'not_found_error';
    case 413: return 'request_too_large';
    case 429: return 'rate_limit_error';
    case 503:
    case 529: return 'overloaded_error';
    case 504: return 'timeout_error';
    default: return status >= 500 ? 'api_error' : 'invalid_request_error';
  }
}

function defaultCode(status: number): string | null {
  if (status === 401) return 'invalid_api_key';
  if (status === 404) return 'not_found';
  if (status === 429) return 'rate_limit_exceeded';
  return null;
}

/** `{"error":{"message","type","param","code"}}` */
export function openaiErrorBody(spec: ErrorSpec): object {
  return {
    error: {
      message: spec.message,
      type: openaiType(spec.status),
      param: spec.param ?? null,
      code: spec.code === undefined ? defaultCode(spec.status) : spec.code,
    },
  };
}

/** `{"type":"error","error":{"type","message"},"request_id"}` */
export function anthropicErrorBody(spec: ErrorSpec, requestId: string): object {
  return {
    type: 'error',
    error: { type: anthropicType(spec.status), message: spec.message },
    request_id: requestId,
  };
}

/** Google's status name for an HTTP status (ai.google.dev/gemini-api/docs/troubleshooting). */
export function googleStatus(status: number): string {
  switch (status) {
    case 400: return 'INVALID_ARGUMENT';
    case 401: return 'UNAUTHENTICATED';
    case 403: return 'PERMISSION_DENIED';
    case 404: return 'NOT_FOUND';
    case 409: return 'ABORTED';
    case 413: return 'INVALID_ARGUMENT';
    case 429: return 'RESOURCE_EXHAUSTED';
    case 499: return 'CANCELLED';
    case 501: return 'UNIMPLEMENTED';
    case 503: return 'UNAVAILABLE';
    case 504: return 'DEADLINE_EXCEEDED';
    default: return status >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION';
  }
}

/** `{"error":{"code","message","status","details"?}}` (Gemini API). */
export function googleErrorBody(spec: ErrorSpec): object {
  return {
    error: {
      code: spec.status,
      message: spec.message,
      status: spec.googleStatus ?? googleStatus(spec.status),
      ...(spec.details && spec.details.length > 0 ? { details: spec.details } : {}),
    },
  };
}

export function errorBody(provider: Provider, spec: ErrorSpec, requestId = newId('req_')): object {
  if (provider === 'gemini') return googleErrorBody(spec);
  return provider === 'openai' ? openaiErrorBody(spec) : anthropicErrorBody(spec, requestId);
}

/** The message used for an injected failure status. */
export function injectedMessage(status: number, provider: Provider = 'openai'): string {
  if (status === 429) return provider === 'gemini' ? 'Resource has been exhausted (e.g. check quota). (simulated)' : 'Rate limit reached (simulated)';
  if (status === 529 || status === 503) return 'Overloaded (simulated)';
  return `Simulated failure with status ${status}`;
}
