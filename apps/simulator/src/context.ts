/** State shared by every request of one simulator. */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FaultQueue } from './faults.ts';
import type { SimulatorStats } from './stats.ts';
import type { Behaviour } from './types.ts';

export interface SimContext {
  stats: SimulatorStats;
  faults: FaultQueue;
  defaults: Behaviour;
  apiKey: string | null;
  models: readonly string[];
  /** Strict mode: refuse what the real provider refuses per model (strict.ts); tools only on request. */
  strict: boolean;
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

/** Request headers with the authorization / x-api-key secrets redacted. */
export function recordedHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value.join(', ') : value;
    if (name === 'authorization') {
      const token = bearerToken(text);
      out[name] = token === null ? redactSecret(text) : `Bearer ${redactSecret(token)}`;
    } else if (name === 'x-api-key') {
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
