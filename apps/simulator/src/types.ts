/** Per-request behaviour of the simulator (see README section in index.ts). */
export interface Behaviour {
  /** Delay before the response headers, in milliseconds. */
  latencyMs: number;
  /** Number of words (= output tokens, = stream content chunks) in a text answer. */
  chunks: number;
  /** Delay before each streamed content chunk, in milliseconds. */
  chunkDelayMs: number;
  /** Respond with this HTTP status and the provider's error body, before any other byte. */
  failStatus: number | null;
  /** The message of that error body; null: the simulator's own (`Simulated failure with status N`). */
  failMessage: string | null;
  /** Destroy the socket before any response byte. */
  reset: boolean;
  /** Streams: destroy the socket after this many content chunks (no terminal events). */
  cutAfter: number | null;
  /** Accept the request and never answer. */
  hang: boolean;
  /** Report this many input tokens as cached (cache reads). */
  cached: number;
  /** Report this many input tokens as 5-minute cache writes. */
  cacheWrite: number;
  /** Report this many input tokens as 1-hour cache writes. */
  cacheWrite1h: number;
  /** Report this many server-side web searches (Anthropic server_tool_use.web_search_requests). */
  webSearch: number;
  /** Report this many reasoning tokens, on top of the visible output (part of output_tokens). */
  reasoning: number;
  /** `retry-after` header (seconds) sent with a failStatus response. */
  retryAfter: number | null;
}

export const DEFAULT_BEHAVIOUR: Behaviour = {
  latencyMs: 0,
  chunks: 12,
  chunkDelayMs: 0,
  failStatus: null,
  failMessage: null,
  reset: false,
  cutAfter: null,
  hang: false,
  cached: 0,
  cacheWrite: 0,
  cacheWrite1h: 0,
  webSearch: 0,
  reasoning: 0,
  retryAfter: null,
};

export type Provider = 'openai' | 'anthropic' | 'gemini';

export type Outcome = 'pending' | 'ok' | 'failed' | 'reset' | 'cut' | 'hang' | 'aborted';

export interface ReportedUsage {
  input_tokens: number;
  output_tokens: number;
  cached_tokens: number;
  images: number;
}

export interface StatsRecord {
  /** Sequential id, unique within the simulator's life: "simreq_<n>". */
  id: string;
  method: string;
  path: string;
  provider: Provider;
  model: string | null;
  stream: boolean;
  /** Request headers as received; authorization / x-api-key / x-goog-api-key values are redacted to "<redacted:sha256-prefix>". */
  headers: Record<string, string>;
  /** Whether the request passed the simulator's API-key check (true when no key is configured). */
  authorized: boolean;
  /** The parsed JSON body exactly as received (null when absent or not JSON). */
  body: unknown;
  /** Size of the request body in bytes as received (0 when absent). */
  bodyBytes: number;
  /** Where the behaviour came from. */
  behaviourSource: 'directive' | 'fault' | 'default';
  outcome: Outcome;
  /** HTTP status sent (null when no status line was sent: reset, hang, ...). */
  status: number | null;
  /** Usage reported to the client; null unless the response completed. */
  usage: ReportedUsage | null;
  /** Streamed content chunks written (words / tool-argument pieces). */
  chunksSent: number;
  startedAt: number;
  durationMs: number | null;
  /**
   * When the whole response had been handed to the network (its 'finish'); null until then. A
   * caller that stops reading holds it back once the socket buffers between them are full.
   */
  flushedAt: number | null;
}
