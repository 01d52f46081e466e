/** One provider request being answered: its stats record, error and JSON answers, and the behaviour steps shared by every route. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { resolveBehaviour } from './behaviour.ts';
import type { SimContext } from './context.ts';
import { errorBody, injectedMessage, type ErrorSpec } from './errors.ts';
import { BodyTooLargeError, readBody, resetSocket, sendJson, sleep } from './http-util.ts';
import { newId } from './ids.ts';
import type { Behaviour, Provider, ReportedUsage, StatsRecord } from './types.ts';

export function parseJson(raw: Buffer): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(raw.toString('utf8')) as unknown };
  } catch {
    return { ok: false };
  }
}

/** A request's body as the routes read it: parsed JSON, else the first 10k of its text (`jsonError`). */
export interface RequestBody {
  body: unknown;
  bodyBytes: number;
  jsonError: boolean;
}

/**
 * Reads a POST body (other methods' bodies are drained): `too_large` past the simulator's limit,
 * null when the client went away mid-body.
 */
export async function readRequestBody(req: IncomingMessage): Promise<RequestBody | 'too_large' | null> {
  if (req.method !== 'POST') {
    req.resume();
    return { body: null, bodyBytes: 0, jsonError: false };
  }
  try {
    const raw = await readBody(req);
    if (raw.length === 0) return { body: null, bodyBytes: 0, jsonError: false };
    const parsed = parseJson(raw);
    return parsed.ok ? { body: parsed.value, bodyBytes: raw.length, jsonError: false } : { body: raw.toString('utf8').slice(0, 10_000), bodyBytes: raw.length, jsonError: true };
  } catch (error) {
    if (error instanceof BodyTooLargeError) return 'too_large';
    return null;
  }
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export class Exchange {
  readonly requestId = newId('req_');
  readonly ctx: SimContext;
  readonly res: ServerResponse;
  readonly provider: Provider;
  record: StatsRecord | null = null;

  constructor(ctx: SimContext, res: ServerResponse, provider: Provider) {
    this.ctx = ctx;
    this.res = res;
    this.provider = provider;
  }

  headers(): Record<string, string> {
    if (this.provider === 'gemini') return {};
    return this.provider === 'openai' ? { 'x-request-id': this.requestId } : { 'request-id': this.requestId };
  }

  fail(spec: ErrorSpec, extra: Record<string, string> = {}): void {
    sendJson(this.res, spec.status, errorBody(this.provider, spec, this.requestId), { ...this.headers(), ...extra });
    this.finish('failed', spec.status);
  }

  json(body: object, usage: ReportedUsage | null): void {
    sendJson(this.res, 200, body, this.headers());
    this.finish('ok', 200, usage);
  }

  finish(outcome: Exclude<StatsRecord['outcome'], 'pending'>, status: number | null, usage: ReportedUsage | null = null): void {
    if (!this.record) return;
    if (this.record.outcome === 'pending' && status !== null) this.record.status = status;
    this.ctx.stats.finish(this.record, outcome, usage);
  }
}

/** Google's RetryInfo detail for a `retry-after` of `seconds`. */
function retryInfo(seconds: number): object {
  return { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${seconds}s` };
}

/** Latency, hang, reset and failStatus. False when the request has been dealt with (or abandoned). */
export async function applyBehaviour(ex: Exchange, req: IncomingMessage, behaviour: Behaviour): Promise<boolean> {
  if (behaviour.hang) {
    ex.finish('hang', null);
    return false;
  }
  if (behaviour.latencyMs > 0) {
    await sleep(behaviour.latencyMs);
    if (ex.res.destroyed) {
      ex.finish('aborted', null);
      return false;
    }
  }
  if (behaviour.reset) {
    ex.finish('reset', null);
    resetSocket(req);
    return false;
  }
  if (behaviour.failStatus !== null) {
    const extra: Record<string, string> = behaviour.retryAfter !== null ? { 'retry-after': String(behaviour.retryAfter) } : {};
    const spec: ErrorSpec = { status: behaviour.failStatus, message: behaviour.failMessage ?? injectedMessage(behaviour.failStatus, ex.provider) };
    if (ex.provider === 'gemini' && behaviour.retryAfter !== null) spec.details = [retryInfo(behaviour.retryAfter)];
    ex.fail(spec, extra);
    return false;
  }
  return true;
}

/** Non-streaming cut: headers and half of the body, then the socket is destroyed. */
export function cutJson(ex: Exchange, req: IncomingMessage, body: object): void {
  const text = JSON.stringify(body);
  ex.res.writeHead(200, { ...ex.headers(), 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  ex.res.write(text.slice(0, Math.floor(text.length / 2)), () => {
    ex.finish('cut', 200);
    req.socket.destroy();
  });
}

/**
 * A one-JSON-object answer (no generated text): directives in `seedText` or a queued fault first,
 * then the body `answer` builds and the usage it reports.
 */
export async function answerJson(ex: Exchange, req: IncomingMessage, path: string, model: string, seedText: string, answer: () => { body: object; usage: ReportedUsage }): Promise<void> {
  const resolved = resolveBehaviour(seedText, { path, model, stream: false }, ex.ctx.faults, ex.ctx.defaults);
  if (ex.record) ex.record.behaviourSource = resolved.source;
  if (!(await applyBehaviour(ex, req, resolved.behaviour))) return;
  const { body, usage } = answer();
  if (resolved.behaviour.cutAfter !== null) return cutJson(ex, req, body);
  ex.json(body, usage);
}

export function inputUsage(inputTokens: number, images = 0): ReportedUsage {
  return { input_tokens: inputTokens, output_tokens: 0, cached_tokens: 0, images };
}
