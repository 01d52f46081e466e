import type { ServerResponse } from "node:http";
import type { Usage } from "@gateway/contracts";
import type { EventSourceMessage } from "eventsource-parser";
import type { ParsedRequest, StreamTracker, WireFormat } from "../core/wire-format.ts";
import type { UpstreamShapeAdapter } from "../upstreams/index.ts";
import type { Target } from "../routing/routing-table.ts";
import type { Translation } from "../core/pipeline.ts";
import type { CallAbort, UpstreamCall, UpstreamClient } from "./upstream-client.ts";
import type { RunningRequest } from "./running-request.ts";
import type { Logger } from "@gateway/logger";
import type { TextTokenCounter } from "../tokens/token-counter-pool.ts";
import { DEFAULT_DROP_BETAS } from "@gateway/config";
import { clientBetas } from "./request-drops.ts";
import { DROPPED_PARAMS_HEADER, droppedParamsHeaderValue } from "../core/drops.ts";

/** Everything one upstream attempt needs. */
export interface AttemptContext {
  client: UpstreamClient;
  response: ServerResponse;
  requestId: string;
  /** The client's wire format: what the client sees, including the final error event. */
  wire: WireFormat;
  /** The upstream's own wire format: its path, usage capture and stream tracker (= wire when same shape). */
  upstreamWire: WireFormat;
  /** How the client's shape maps to the upstream's; null when they are the same. */
  translation: Translation | null;
  adapter: UpstreamShapeAdapter;
  /** The client's request. */
  request: ParsedRequest;
  /** The request in the upstream's shape (= request when same shape). */
  upstreamRequest: ParsedRequest;
  /** Request paths removed before this attempt (`x-gateway-dropped-params`); empty when none. */
  droppedParams: readonly string[];
  requestBytes: number;
  /** The client's body as received: forwarded as is when same shape and nothing in it changes. */
  rawBody: Buffer | null;
  clientHeaders: Record<string, string | string[] | undefined>;
  target: Target;
  /** The client's side: whether it went away, and a way to hear it go. */
  clientConnection: ClientConnection;
  streamIdleTimeoutMs: number;
  /** How long the upstream is read on, for its final usage, once the client left (DISCONNECT_DRAIN_MS); none when unset. */
  disconnectDrainMs?: number;
  /** The request as the in-flight registry sees it: the attempt reports its progress and hears a termination through it. */
  running?: RunningRequest;
  /**
   * Counts a stream's relayed output exactly, off the main thread, for the estimate billed when its
   * final usage never came (the proxy's token counter pool); without it the estimate is the output's
   * pre-token count.
   */
  tokenCounter?: TextTokenCounter;
  /** Where the attempt logs what the client need not see (a count that could not be had). */
  logger?: Pick<Logger, "warn">;
  /** The W3C trace context sent upstream (the attempt's own span when spans are exported). */
  traceparent: string;
  /** Sees the upstream's answer for the attempt's span; only set when spans are exported. */
  observer?: AttemptObserver;
  startedAt: number;
}

/**
 * What the attempt's span reads of the upstream's answer (its id, model, finish reasons, output
 * text when content is captured), in the upstream's own shape. Only made when spans are exported,
 * so the relay's own path never builds or parses anything for it.
 */
export interface AttemptObserver {
  /** Each event of a stream as it arrives; `tracker` reads an event's output text. */
  event(event: EventSourceMessage, tracker: StreamTracker): void;
  /** A JSON answer's parsed body. */
  body(parsed: unknown): void;
}

/**
 * The client's connection as the attempts see it: gone once its response closed before it was
 * finished. Read from the response itself, so a request needs no AbortController of its own
 * (an EventTarget and its listener per request); the attempt being made hears the client go
 * through `gone` (it drains its upstream for the final usage, then aborts it: contract section 14).
 */
export interface ClientConnection {
  readonly gone: boolean;
  /** Calls `gone` if the client goes away before `unwatch`; one attempt at a time. */
  watch(gone: () => void): void;
  unwatch(): void;
}

/**
 * A class, not an object literal with a getter: a literal's getter is a new closure each time, so
 * V8 gives every such object a hidden class of its own, held from old space until the next full
 * collection; through the getter's closure that kept each request's response, request and parse
 * alive across young collections, and all of it was promoted (issue 18: about 0.8 MB per
 * scavenge at concurrency 1, most of the collector's work). One `close` listener per request,
 * added with the first attempt (no once-wrapper, no closure per attempt).
 */
class ResponseConnection implements ClientConnection {
  private readonly response: ServerResponse;
  private onGone: (() => void) | null = null;
  private listening = false;

  constructor(response: ServerResponse) {
    this.response = response;
  }

  get gone(): boolean {
    return this.response.destroyed && !this.response.writableFinished;
  }

  watch(gone: () => void): void {
    this.onGone = gone;
    if (this.listening) return;
    this.listening = true;
    this.response.on("close", () => {
      const watched = this.onGone;
      this.onGone = null;
      if (watched !== null && !this.response.writableFinished) watched();
    });
  }

  unwatch(): void {
    this.onGone = null;
  }
}

export function clientConnection(response: ServerResponse): ClientConnection {
  return new ResponseConnection(response);
}

/** Why an attempt was aborted when its client went away (and the drain, if any, ran out). */
export const CLIENT_GONE = "client disconnected";

/**
 * What an attempt does once its client left: reads on for up to `drainMs` (the upstream's final
 * usage is then billed exactly), then aborts; at once when there is no drain. The timer exists only
 * for a client that left.
 */
export function drainThenAbort(attempt: CallAbort, drainMs: number): void {
  if (drainMs <= 0) {
    attempt.abort(new Error(CLIENT_GONE));
    return;
  }
  setTimeout(() => attempt.abort(new Error(CLIENT_GONE)), drainMs).unref();
}

/** What a finished attempt reports for billing. */
export interface AttemptOutcome {
  status: "ok" | "error" | "client_aborted";
  usage: Usage;
  estimated: boolean;
  ttfbMs: number | null;
  /** Why an attempt that ended in an error did (for the log: it may hold the upstream's own words). */
  reason?: string;
}

/** How much of an upstream's error body is kept (its message is near the start). */
const ERROR_BODY_LIMIT = 64 * 1024;

/**
 * Headers of every upstream call: the shape's auth, our request id, the trace context. The
 * client's `anthropic-beta` goes only to an Anthropic-shape upstream serving the same shape, minus
 * that upstream's `drop_betas` (OAuth betas by default); never cross-shape.
 */
function upstreamHeaders(context: AttemptContext, extra: Record<string, string> = {}): Record<string, string> {
  const headers: Record<string, string> = { ...context.adapter.headers(upstreamSecret(context.target), context.clientHeaders), ...extra, "x-request-id": context.requestId, traceparent: context.traceparent };
  delete headers["anthropic-beta"];
  if (context.adapter.shape === "anthropic" && !context.translation) {
    const betas = forwardedBetas(context.clientHeaders["anthropic-beta"], context.target.upstream.dropBetas);
    if (betas) headers["anthropic-beta"] = betas;
  }
  const tracestate = context.clientHeaders.tracestate;
  return typeof tracestate === "string" ? { ...headers, tracestate } : headers;
}

/** The client's betas an Anthropic-shape upstream gets: all of them minus its `drop_betas`; null when none is left. */
export function forwardedBetas(value: string | string[] | undefined, dropBetas: readonly string[] = DEFAULT_DROP_BETAS): string | null {
  if (value === undefined) return null;
  const dropped = new Set(dropBetas);
  const kept = [...new Set(clientBetas(value))].filter((beta) => !dropped.has(beta));
  return kept.length > 0 ? kept.join(",") : null;
}

/**
 * The body of the upstream call: the client's own bytes when the shapes match and nothing needs
 * changing (the common case), else the prepared body serialised once.
 */
function upstreamBody(context: AttemptContext): string | Buffer {
  const prepared = context.upstreamWire.upstreamBody(context.upstreamRequest, context.target.model);
  if (prepared === null) {
    if (!context.translation && context.rawBody) return context.rawBody;
    return JSON.stringify(context.upstreamRequest.body);
  }
  return JSON.stringify(prepared);
}

/**
 * The attempt's upstream call, prepared in full before it starts: preparing is the gateway's own
 * work, so a failure here is never the upstream's (it is thrown as is, so it neither fails over
 * nor counts against the target's circuit).
 */
export function upstreamCall(context: AttemptContext, abort: CallAbort, extraHeaders?: Record<string, string>): UpstreamCall {
  return {
    upstream: context.target.upstream,
    path: context.upstreamWire.pathFor === undefined ? context.upstreamWire.upstreamPath : context.upstreamWire.pathFor(context.target.model, context.upstreamRequest.stream),
    headers: upstreamHeaders(context, extraHeaders),
    body: upstreamBody(context),
    abort,
    bodyTimeoutMs: context.streamIdleTimeoutMs,
    errorBodyLimit: ERROR_BODY_LIMIT,
    onDropped: (field) => listDropped(context.response, field),
  };
}

/** A field the upstream refused and the call went again without, added to `x-gateway-dropped-params` (before the head is written). */
function listDropped(response: ServerResponse, field: string): void {
  if (response.headersSent) return;
  const current = response.getHeader(DROPPED_PARAMS_HEADER);
  const listed = typeof current === "string" ? current.split(", ") : [];
  response.setHeader(DROPPED_PARAMS_HEADER, droppedParamsHeaderValue([...listed, field])!);
}

const secrets = new Map<string, string>();

/**
 * Secrets come from each proxy's own environment, by the name the config gives; read once per
 * name (the environment does not change under a running process, and `process.env` is a slow
 * native lookup on every request).
 */
export function upstreamSecret(target: Target): string | null {
  const name = target.upstream.secretEnv;
  if (!name) return null;
  let secret = secrets.get(name);
  if (secret === undefined) {
    secret = process.env[name];
    if (secret === undefined) return null;
    secrets.set(name, secret);
  }
  return secret;
}
