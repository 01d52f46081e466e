/**
 * `#sim:` directives in the last user message text, e.g.
 * `#sim:chunks=50 #sim:chunk_delay_ms=20 #sim:latency_ms=5 #sim:fail=503 #sim:retry_after=2
 *  #sim:reset #sim:cut_after=3 #sim:hang #sim:cached=10`, and the usage parts:
 * `#sim:cache_write=N` (5-minute writes), `#sim:cache_write_1h=N`, `#sim:web_search=N`, `#sim:reasoning=N`.
 * Unknown names and malformed values are ignored.
 */
import type { Behaviour } from './types.ts';

const DIRECTIVE = /#sim:([a-z_0-9]+)(?:=(\d+))?/g;

type NumericKey = 'chunks' | 'chunkDelayMs' | 'latencyMs' | 'failStatus' | 'cutAfter' | 'cached' | 'cacheWrite' | 'cacheWrite1h' | 'webSearch' | 'reasoning' | 'retryAfter';

const NUMERIC: Record<string, NumericKey> = {
  chunks: 'chunks',
  chunk_delay_ms: 'chunkDelayMs',
  latency_ms: 'latencyMs',
  fail: 'failStatus',
  cut_after: 'cutAfter',
  cached: 'cached',
  cache_write: 'cacheWrite',
  cache_write_1h: 'cacheWrite1h',
  web_search: 'webSearch',
  reasoning: 'reasoning',
  retry_after: 'retryAfter',
};

const FLAGS: Record<string, 'reset' | 'hang'> = { reset: 'reset', hang: 'hang' };

/** The directives found in `text`, or null when there are none. */
export function parseDirectives(text: string): Partial<Behaviour> | null {
  if (!text.includes('#sim:')) return null;
  const found: Partial<Behaviour> = {};
  let any = false;
  for (const match of text.matchAll(DIRECTIVE)) {
    const name = match[1] ?? '';
    const value = match[2];
    const numericKey = NUMERIC[name];
    const flagKey = FLAGS[name];
    if (numericKey !== undefined && value !== undefined) {
      const n = Number(value);
      if (numericKey === 'failStatus' && (n < 400 || n > 599)) continue;
      found[numericKey] = n;
      any = true;
    } else if (flagKey !== undefined) {
      found[flagKey] = true;
      any = true;
    }
  }
  return any ? found : null;
}
