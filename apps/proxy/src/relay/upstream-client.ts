import type { Dispatcher } from "undici";
import { Pool } from "./undici-pool.ts";
import type { UpstreamRecord } from "@gateway/redis-store";
import { dialectTransport, type DialectTransport } from "../upstreams/dialects/index.ts";

/**
 * Cancels one upstream call: the attempt's first-byte timer and the client leaving abort through
 * it. Not an AbortController: no EventTarget, listener map or event object per call, only the
 * one listener a call has (its handler, once undici starts the request).
 */
export class CallAbort {
  aborted = false;
  reason: unknown = undefined;
  private listener: ((reason: unknown) => void) | null = null;

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listener = this.listener;
    this.listener = null;
    listener?.(reason);
  }

  /** `listener` runs on abort, at once when the call was aborted already; it replaces any other. */
  listen(listener: (reason: unknown) => void): void {
    if (this.aborted) listener(this.reason);
    else this.listener = listener;
  }

  unlisten(): void {
    this.listener = null;
  }
}

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
  abort: CallAbort;
  /** Longest pause between two body chunks. */
  bodyTimeoutMs: number;
  /** For an error status (>= 400), the most of its body kept: it only says why. */
  errorBodyLimit: number;
  /** Hears a top-level field the provider refused and the call was sent again without (listed in `x-gateway-dropped-params`). */
  onDropped?: (field: string) => void;
}

/** A call's answer: for `read`, its whole body; for `stream`, an error status's body only. */
export interface UpstreamAnswer {
  statusCode: number;
  /** The body; for an error status (>= 400) at most `errorBodyLimit` bytes of it. */
  body: Buffer;
}

/**
 * Takes a successful (< 400) streamed answer's body chunks as they come, in the call's own tick
 * (no Readable, no async iterator, no tick per chunk between the socket and the client). `chunk`
 * returns false to pause the call until `resume` is called; a throw aborts the call with that
 * error. `end`, when given, runs in the tick the body ends, before the call's promise resolves:
 * what it writes joins the writes of that tick's last chunk (one send, not one more on a later
 * tick); a throw there rejects the call.
 */
export interface BodySink {
  chunk(chunk: Buffer, resume: () => void): boolean;
  end?(): void;
}

const NO_BODY = Buffer.alloc(0);
/** How many fields a provider may refuse one by one before its 400 is the answer. */
const MAX_REFUSED_FIELDS = 3;

/**
 * One call's answer through undici's dispatch handler interface: no Readable stream, no
 * AsyncResource and no listener bookkeeping of the request API per call. Without a sink the body
 * is collected (`read`); with one, a successful answer's chunks go to it (`stream`). An error
 * status's body is always collected, up to the limit, and the rest let go by.
 */
class CallHandler implements Dispatcher.DispatchHandler {
  private statusCode = 0;
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private controller: Dispatcher.DispatchController | null = null;
  private readonly abort: CallAbort;
  private readonly errorBodyLimit: number;
  private readonly sink: BodySink | null;
  private readonly resolve: (answer: UpstreamAnswer) => void;
  private readonly reject: (error: unknown) => void;
  private readonly resume = () => this.controller?.resume();

  constructor(call: UpstreamCall, sink: BodySink | null, resolve: (answer: UpstreamAnswer) => void, reject: (error: unknown) => void) {
    this.abort = call.abort;
    this.errorBodyLimit = call.errorBodyLimit;
    this.sink = sink;
    this.resolve = resolve;
    this.reject = reject;
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    this.abort.listen((reason) => controller.abort(reason as Error));
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number): void {
    this.statusCode = statusCode;
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.statusCode < 400) {
      if (this.sink !== null) {
        // A throw here aborts the call with it (undici), which ends in onResponseError.
        if (!this.sink.chunk(chunk, this.resume)) controller.pause();
        return;
      }
    } else if (this.size >= this.errorBodyLimit) {
      return;
    }
    this.chunks.push(chunk);
    this.size += chunk.length;
  }

  onResponseEnd(): void {
    this.abort.unlisten();
    if (this.statusCode < 400 && this.sink?.end) {
      try {
        this.sink.end();
      } catch (error) {
        this.reject(error);
        return;
      }
    }
    this.resolve({ statusCode: this.statusCode, body: this.body() });
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.abort.unlisten();
    // An error status's body cut short still tells the status; its text is optional.
    if (this.statusCode >= 400 && !this.abort.aborted) this.resolve({ statusCode: this.statusCode, body: this.body() });
    else this.reject(error);
  }

  private body(): Buffer {
    if (this.chunks.length === 0) return NO_BODY;
    const body = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.size);
    return this.statusCode >= 400 ? body.subarray(0, this.errorBodyLimit) : body;
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

  /**
   * A non-streaming call, its whole answer read. Rejects with undici's error (or the abort's
   * reason) when the call fails before the body has ended.
   */
  read(call: UpstreamCall): Promise<UpstreamAnswer> {
    return this.dispatch(call, null);
  }

  /**
   * A streaming call: a successful answer's body goes to `sink` chunk by chunk, `sink.end` runs
   * at its end and the promise then resolves (with an empty body); an error status resolves with
   * its body. Rejects when the call fails (the sink's own throw included).
   */
  stream(call: UpstreamCall, sink: BodySink): Promise<UpstreamAnswer> {
    return this.dispatch(call, sink);
  }

  private dispatch(call: UpstreamCall, sink: BodySink | null): Promise<UpstreamAnswer> {
    const transport = dialectTransport(call.upstream);
    return transport === null ? this.send(call, sink) : this.sendAs(transport, call, sink);
  }

  /**
   * A call to a provider kind (Azure, Bedrock, Vertex): its transport rewrites the path, body and
   * auth (a signature or a token may take a moment), reads its stream framing as the shape's SSE and
   * its error bodies as the shape's envelope. A failure to prepare (no credentials, a token endpoint
   * down) rejects like a failed connection: the target's, so it fails over and counts against it.
   */
  private async sendAs(transport: DialectTransport, call: UpstreamCall, sink: BodySink | null): Promise<UpstreamAnswer> {
    const prepared = await transport.prepare(call, sink !== null);
    for (let refused = 0; ; refused += 1) {
      if (call.abort.aborted) throw call.abort.reason;
      const answer = await this.send({ ...call, ...prepared }, sink !== null && transport.streamSink ? transport.streamSink(sink) : sink);
      if (answer.statusCode < 400) return sink === null && transport.answerBody ? { statusCode: answer.statusCode, body: transport.answerBody(prepared.path, answer.body) } : answer;
      transport.failed?.(answer.statusCode);
      // A field the provider says it does not take: sent again without it, listed (at most a few).
      const sent = transport.refusedField && refused < MAX_REFUSED_FIELDS ? (JSON.parse(prepared.body.toString()) as Record<string, unknown>) : null;
      const field = sent === null ? null : transport.refusedField!(answer.statusCode, answer.body, sent);
      if (field === null) return transport.errorBody ? { statusCode: answer.statusCode, body: transport.errorBody(answer.statusCode, answer.body) } : answer;
      delete sent![field];
      prepared.body = JSON.stringify(sent);
      call.onDropped?.(field);
    }
  }

  private send(call: UpstreamCall, sink: BodySink | null): Promise<UpstreamAnswer> {
    const route = this.route(call.upstream);
    return new Promise<UpstreamAnswer>((resolve, reject) => {
      const handler = new CallHandler(call, sink, resolve, reject);
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
