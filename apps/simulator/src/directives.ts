/**
 * `#sim:` directives in the last user message text, e.g.
 * `#sim:chunks=50 #sim:chunk_delay_ms=20 #sim:latency_ms=5 #sim:fail=503 #sim:retry_after=2
 *  #sim:reset #sim:cut_after=3 #sim:hang #sim:cached=10`, and the usage parts:
 * `#sim:cache_write=N` (5-minute writes), `#sim:cache_write_1h=N`, `#sim:web_search=N`, `#sim:reasoning=N`.
 * Unknown names and malformed values are ignored.
 *
 * Tool calls on request (parseToolDirectives): `#sim:tool=<name>` calls that tool (when the request
 * offers it), `#sim:tool_args=<base64url of a JSON object>` gives its arguments (else they are built
 * from the tool's schema). A `tool_args` belongs to the nearest `tool` before it (or, before any, to
 * the first one after it). Several `tool` directives are a sequence: the n-th is called after n tool
 * rounds. These do not count as behaviour directives: a request carrying only them still takes the
 * fault queue.
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

/** One requested tool call: the tool's name as the request offers it, and its arguments (null: from the schema). */
export interface ToolDirective {
  name: string;
  /** The decoded `tool_args` object, or null. */
  args: Record<string, unknown> | null;
}

/**
 * String-valued directives: the value runs over name and base64(url) characters only, so it ends at
 * whitespace, quotes, brackets, `#` (the next directive), `,` `;` `:` and the like.
 */
const TOOL_DIRECTIVE = /#sim:(tool|tool_args)=([A-Za-z0-9_.+\/=-]*)/g;
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const BASE64 = /^[A-Za-z0-9_+\/-]+={0,2}$/;
/** Decoded arguments larger than this are ignored (a prompt is not a payload channel). */
const MAX_ARGS_CHARS = 64 * 1024;

function toolName(value: string): string | null {
  const name = value.replace(/\.+$/, '');
  return TOOL_NAME.test(name) ? name : null;
}

/** The JSON object encoded in `value` (base64url, standard base64 accepted), or null. Never throws. */
export function decodeToolArgs(value: string): Record<string, unknown> | null {
  if (value.length === 0 || value.length > MAX_ARGS_CHARS * 2 || !BASE64.test(value)) return null;
  const text = Buffer.from(value.replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_'), 'base64url').toString('utf8');
  if (text.length > MAX_ARGS_CHARS) return null;
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** `args` as the `#sim:tool_args=` value (unpadded base64url of its JSON). */
export function encodeToolArgs(args: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(args), 'utf8').toString('base64url');
}

/** The tool directives in `text`, in order (empty when there are none). Never throws. */
export function parseToolDirectives(text: string): ToolDirective[] {
  if (typeof text !== 'string' || !text.includes('#sim:tool')) return [];
  const tools: ToolDirective[] = [];
  let pendingArgs: Record<string, unknown> | null = null;
  for (const match of text.matchAll(TOOL_DIRECTIVE)) {
    const value = match[2] ?? '';
    if (match[1] === 'tool') {
      const name = toolName(value);
      if (name === null) continue;
      tools.push({ name, args: pendingArgs });
      pendingArgs = null;
      continue;
    }
    const args = decodeToolArgs(value.replace(/\.+$/, ''));
    if (args === null) continue;
    const last = tools.at(-1);
    if (last) last.args = args;
    else pendingArgs = args;
  }
  return tools;
}
