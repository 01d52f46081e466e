/** State shared by every request of one simulator. */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FaultQueue } from './faults.ts';
import type { CloudAccounts } from './cloud-accounts.ts';
import type { SimulatorStats } from './stats.ts';
import type { Behaviour } from './types.ts';

export interface SimContext {
  stats: SimulatorStats;
  faults: FaultQueue;
  defaults: Behaviour;
  apiKey: string | null;
  models: readonly string[];
  /** Model ids listed by the Gemini routes (`GET /v1beta/models`). */
  geminiModels: readonly string[];
  /** Strict mode: refuse what the real provider refuses per model (strict.ts); tools only on request. */
  strict: boolean;
  /** The AWS key pair and Google service account the provider kinds' routes check (cloud-accounts.ts). */
  cloud: CloudAccounts;
  /** Base URL of the simulator, used when the request has no Host header. */
  baseUrl: () => string;
}

/** `<redacted:` + first 12 hex chars of sha256(secret) + `>`: lets tests tell which secret was sent. */
export function redactSecret(secret: string): string {
  return `<redacted:${createHash('sha256').update(secret).digest('hex').slice(0, 12)}>`;
}

function bearerToken(value: string | undefined): string | null {
  if (value === undefined) return null;
  const match = /^Bearer\s+(.+)$/i.exec(value);
  return match ? (match[1] as string).trim() : null;
}

/** Request headers with the authorization / x-api-key / x-goog-api-key secrets redacted. */
export function recordedHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value.join(', ') : value;
    if (name === 'authorization') {
      const token = bearerToken(text);
      out[name] = token === null ? redactSecret(text) : `Bearer ${redactSecret(token)}`;
    } else if (name === 'x-api-key' || name === 'x-goog-api-key') {
      out[name] = redactSecret(text);
    } else {
      out[name] = text;
    }
  }
  return out;
}

/** OpenAI paths take `Authorization: Bearer`; the Anthropic path also takes `x-api-key`. */
export function isAuthorized(req: IncomingMessage, apiKey: string | null, allowXApiKey: boolean): boolean {
  if (apiKey === null) return true;
  if (bearerToken(req.headers.authorization) === apiKey) return true;
  return allowXApiKey && req.headers['x-api-key'] === apiKey;
}

/**
 * The Gemini routes' key check, as Google answers: the key from `x-goog-api-key`, else `?key=`, else
 * `Authorization: Bearer`. Null when accepted; else the status and error for the envelope (no key:
 * 403 PERMISSION_DENIED; a wrong API key: 400 INVALID_ARGUMENT, ErrorInfo reason API_KEY_INVALID; a
 * wrong bearer token: 401 UNAUTHENTICATED).
 */
export function geminiAuthError(req: IncomingMessage, query: URLSearchParams, apiKey: string | null): { status: number; message: string; details: object[] } | null {
  if (apiKey === null) return null;
  const header = req.headers['x-goog-api-key'];
  const headerKey = (Array.isArray(header) ? header[0] : header)?.trim() ?? '';
  const key = headerKey.length > 0 ? headerKey : (query.get('key') ?? '').trim();
  if (key.length > 0) {
    if (key === apiKey) return null;
    const message = 'API key not valid. Please pass a valid API key.';
    return {
      status: 400,
      message,
      details: [
        { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com', metadata: { service: 'generativelanguage.googleapis.com' } },
        { '@type': 'type.googleapis.com/google.rpc.LocalizedMessage', locale: 'en-US', message },
      ],
    };
  }
  const token = bearerToken(req.headers.authorization);
  if (token !== null) {
    if (token === apiKey) return null;
    return {
      status: 401,
      message: 'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.',
      details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'ACCESS_TOKEN_TYPE_UNSUPPORTED', domain: 'googleapis.com', metadata: { service: 'generativelanguage.googleapis.com' } }],
    };
  }
  return {
    status: 403,
    message: "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
    details: [],
  };
}
