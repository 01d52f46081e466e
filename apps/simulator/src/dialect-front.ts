/**
 * The provider kinds' front doors (Azure OpenAI, Bedrock, Vertex AI): each checks its own auth and
 * URL, then hands the simulator's own OpenAI or Anthropic route the request those would have
 * (model from the URL, the simulator's key), and rewrites that route's answer into its provider's
 * wire: its stream framing, its error bodies, its headers. Faults, directives and stats apply as on
 * the plain routes.
 */
import { Readable } from 'node:stream';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { SimContext } from './context.ts';
import { handleProvider } from './provider.ts';

/** How one provider's answer differs from the inner route's. */
export interface AnswerRewrite {
  /** A successful stream's head: the headers to send instead (content type, provider headers). */
  streamHead?(headers: OutgoingHttpHeaders): OutgoingHttpHeaders;
  /** A successful stream's bytes, written as they come (whole SSE frames per write). */
  streamChunk?(text: string): Buffer | string;
  /** A whole (non-stream or error) answer: its status, headers and body as the provider sends them. */
  whole?(status: number, headers: OutgoingHttpHeaders, body: Buffer): { status: number; headers: OutgoingHttpHeaders; body: Buffer | string };
}

/** The inner request: `url` (its path), `query`, `headers` and the JSON `body` the plain route reads. */
export interface InnerRequest {
  url: string;
  query?: string;
  headers: Record<string, string>;
  body: object;
}

function flatHeaders(values: OutgoingHttpHeaders | readonly unknown[] | undefined): OutgoingHttpHeaders {
  if (values === undefined || Array.isArray(values)) return {};
  return { ...(values as OutgoingHttpHeaders) };
}

/** Runs the plain route on `inner`, its answer rewritten on the way out. */
export async function forwardInner(ctx: SimContext, req: IncomingMessage, res: ServerResponse, inner: InnerRequest, rewrite: AnswerRewrite): Promise<void> {
  const raw = Buffer.from(JSON.stringify(inner.body));
  const innerReq = Object.assign(Readable.from([raw]), {
    method: 'POST',
    url: inner.query ? `${inner.url}?${inner.query}` : inner.url,
    headers: { ...inner.headers, 'content-type': 'application/json', 'content-length': String(raw.length), host: req.headers.host ?? '' },
    socket: req.socket,
  }) as unknown as IncomingMessage;

  // The route writes through these; the real ones send what the provider would.
  const realWriteHead = res.writeHead.bind(res) as (status: number, headers?: OutgoingHttpHeaders) => ServerResponse;
  const realWrite = res.write.bind(res) as (chunk: Buffer | string, callback?: () => void) => boolean;
  const realEnd = res.end.bind(res) as (chunk?: Buffer | string, callback?: () => void) => ServerResponse;
  let status = 200;
  let headers: OutgoingHttpHeaders = {};
  let streaming = false;
  const held: Buffer[] = [];
  const asBuffer = (chunk: unknown): Buffer => (chunk === undefined || chunk === null || typeof chunk === 'function' ? Buffer.alloc(0) : Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  const patched = res as unknown as Record<string, unknown>;
  patched.writeHead = (code: number, ...rest: unknown[]) => {
    status = code;
    headers = flatHeaders(rest.find((value) => typeof value === 'object') as OutgoingHttpHeaders | undefined);
    const type = String(headers['content-type'] ?? '');
    streaming = status < 400 && type.startsWith('text/event-stream') && rewrite.streamChunk !== undefined;
    if (streaming) {
      const { 'content-length': _length, ...rest2 } = headers;
      realWriteHead(status, rewrite.streamHead ? rewrite.streamHead(rest2) : rest2);
    }
    return res;
  };
  patched.write = (chunk: unknown, ...rest: unknown[]) => {
    const callback = rest.find((value) => typeof value === 'function') as (() => void) | undefined;
    if (streaming) return realWrite(rewrite.streamChunk!(asBuffer(chunk).toString('utf8')), callback);
    held.push(asBuffer(chunk));
    callback?.();
    return true;
  };
  patched.end = (chunk?: unknown, ...rest: unknown[]) => {
    const callback = [chunk, ...rest].find((value) => typeof value === 'function') as (() => void) | undefined;
    const last = asBuffer(chunk);
    if (streaming) return realEnd(last.length > 0 ? rewrite.streamChunk!(last.toString('utf8')) : undefined, callback);
    held.push(last);
    const body = Buffer.concat(held);
    const out = rewrite.whole ? rewrite.whole(status, headers, body) : { status, headers, body };
    const { 'content-length': _length, ...rest2 } = out.headers;
    realWriteHead(out.status, { ...rest2, 'content-length': Buffer.byteLength(out.body) });
    return realEnd(out.body, callback);
  };
  await handleProvider(ctx, innerReq, res, inner.url, inner.query ?? '');
}

/** A provider's error answer, sent directly (before any inner route). */
export function sendProviderError(res: ServerResponse, status: number, body: object, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** Reads a request's raw body (the signature covers its exact bytes). */
export function readRaw(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** The JSON object of a body, or null. */
export function jsonObject(raw: Buffer): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(raw.toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The message of a plain route's error body (OpenAI's or Anthropic's `error.message`). */
export function innerErrorMessage(body: Buffer): string {
  const parsed = jsonObject(body);
  const error = parsed?.['error'];
  const message = error !== null && typeof error === 'object' ? (error as Record<string, unknown>)['message'] : undefined;
  return typeof message === 'string' ? message : body.toString('utf8').slice(0, 200);
}
