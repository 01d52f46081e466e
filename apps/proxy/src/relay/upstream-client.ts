import { Pool, type Dispatcher } from "undici";
import type { UpstreamRecord } from "@gateway/redis-store";

export interface UpstreamCall {
  upstream: UpstreamRecord;
  path: string;
  headers: Record<string, string>;
  body: string | Buffer;
  /**
   * Aborts the call. The attempt's own first-byte timer aborts through it, so undici's headers
   * timeout is off: a second timer per call (undici keeps timers of a second or more in a list
   * it sweeps twice a second, so each one outlived its request by up to a second).
   */
  signal: AbortSignal;
  /** Longest pause between two body chunks. */
  bodyTimeoutMs: number;
}

/** A non-streaming call's whole answer (`UpstreamClient.read`). */
export interface UpstreamAnswer {
  statusCode: number;
  /** The body; for an error status (>= 400) at most `errorBodyLimit` bytes of it. */
  body: Buffer;
}

/**
 * Collects one answer for `read`: undici's dispatch handler interface, so no Readable stream, no
 * AsyncResource and no listener bookkeeping of the request API per call (the hot path's
 * non-streaming attempts). The caller's signal aborts the call through its controller.
 */
class AnswerHandler implements Dispatcher.DispatchHandler {
  private statusCode = 0;
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private controller: Dispatcher.DispatchController | null = null;
  private readonly signal: AbortSignal;
  private readonly errorBodyLimit: number;
  private readonly resolve: (answer: UpstreamAnswer) => void;
  private readonly reject: (error: unknown) => void;
  private readonly onAbort = () => this.controller?.abort(this.signal.reason);

  constructor(signal: AbortSignal, errorBodyLimit: number, resolve: (answer: UpstreamAnswer) => void, reject: (error: unknown) => void) {
    this.signal = signal;
    this.errorBodyLimit = errorBodyLimit;
    this.resolve = resolve;
    this.reject = reject;
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.signal.aborted) controller.abort(this.signal.reason);
    else this.signal.addEventListener("abort", this.onAbort, { once: true });
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number): void {
    this.statusCode = statusCode;
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    // An error body only says why: keep its start, let the rest go by.
    if (this.statusCode >= 400 && this.size >= this.errorBodyLimit) return;
    this.chunks.push(chunk);
    this.size += chunk.length;
  }

  onResponseEnd(): void {
    this.signal.removeEventListener("abort", this.onAbort);
    const body = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.size);
    this.resolve({ statusCode: this.statusCode, body: this.statusCode >= 400 ? body.subarray(0, this.errorBodyLimit) : body });
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.signal.removeEventListener("abort", this.onAbort);
    this.reject(error);
  }
}

interface UpstreamRoute {
  /** The base URL's path without its trailing slash, put before every call's path. */
  basePath: string;
  pool: Pool;
}

/**
 * The one upstream client: an undici Pool of keep-alive connections per upstream (a Pool is bound
 * to its origin, so no per-call origin parsing). A pool is made per upstream (name, base URL,
 * connect timeout), so a config change gets a fresh one.
 */
export class UpstreamClient {
  private readonly pools = new Map<string, Pool>();
  private routes = new WeakMap<UpstreamRecord, UpstreamRoute>();
  private readonly connections: number;

  constructor(options: { connections: number }) {
    this.connections = options.connections;
  }

  send(call: UpstreamCall): Promise<Dispatcher.ResponseData> {
    const route = this.route(call.upstream);
    return route.pool.request({
      path: route.basePath + call.path,
      method: "POST",
      headers: call.headers,
      body: call.body,
      signal: call.signal,
      headersTimeout: 0,
      bodyTimeout: call.bodyTimeoutMs,
    });
  }

  /**
   * A non-streaming call, its whole answer read (`send` gives the body as a stream). Rejects with
   * undici's error (or the signal's reason) when the call fails before the body has ended.
   */
  read(call: UpstreamCall & { errorBodyLimit: number }): Promise<UpstreamAnswer> {
    const route = this.route(call.upstream);
    return new Promise<UpstreamAnswer>((resolve, reject) => {
      const handler = new AnswerHandler(call.signal, call.errorBodyLimit, resolve, reject);
      route.pool.dispatch(
        { path: route.basePath + call.path, method: "POST", headers: call.headers, body: call.body, headersTimeout: 0, bodyTimeout: call.bodyTimeoutMs },
        handler,
      );
    });
  }

  async close(): Promise<void> {
    await Promise.all([...this.pools.values()].map((pool) => pool.close()));
    this.pools.clear();
    this.routes = new WeakMap();
  }

  /**
   * The parsed base URL and pool of an upstream record, worked out once per record: the routing
   * snapshot is replaced whole on a change, so a new record object means a new config.
   */
  private route(upstream: UpstreamRecord): UpstreamRoute {
    let route = this.routes.get(upstream);
    if (!route) {
      const base = new URL(upstream.baseUrl);
      route = { basePath: base.pathname.replace(/\/+$/, ""), pool: this.pool(upstream, base.origin) };
      this.routes.set(upstream, route);
    }
    return route;
  }

  private pool(upstream: UpstreamRecord, origin: string): Pool {
    const id = `${upstream.name}|${upstream.baseUrl}|${upstream.connectTimeoutMs}`;
    let pool = this.pools.get(id);
    if (!pool) {
      pool = new Pool(origin, {
        connections: this.connections,
        keepAliveTimeout: 30_000,
        connect: { timeout: upstream.connectTimeoutMs },
      });
      this.pools.set(id, pool);
    }
    return pool;
  }
}
