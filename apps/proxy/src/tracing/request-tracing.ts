import { ROOT_CONTEXT, SpanKind, SpanStatusCode, defaultTextMapGetter, trace, type Attributes, type Span, type Tracer } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import type { Attempt, BillingEvent } from "@gateway/contracts";
import type { UpstreamRecord } from "@gateway/redis-store";
import type { EndpointName, ParsedRequest, StreamTracker, WireFormat } from "../core/wire-format.ts";
import type { Target } from "../routing/routing-table.ts";
import type { AttemptObserver, AttemptOutcome } from "../relay/attempt-context.ts";
import { upstreamTraceparent } from "../relay/trace-context.ts";
import { OPERATION_NAMES, PROVIDER_NAMES, requestAttributes } from "./gen-ai-attributes.ts";
import { ResponseFacts } from "./response-facts.ts";
import { CONTENT_LIMIT, inputContent, outputContent } from "./content-capture.ts";
import type { EventSourceMessage } from "eventsource-parser";

const propagator = new W3CTraceContextPropagator();

/** The request's span while it runs, and what its last attempt read of the answer. */
interface RequestSpan {
  span: Span;
  facts: ResponseFacts | null;
  provider: string | null;
  stream: boolean;
}

function traceparentOf(span: Span): string {
  const { traceId, spanId, traceFlags } = span.spanContext();
  return `00-${traceId}-${spanId}-${traceFlags.toString(16).padStart(2, "0")}`;
}

/** An upstream's `server.address` and `server.port`, parsed once per upstream record. */
const servers = new WeakMap<UpstreamRecord, { address: string; port: number }>();

function serverOf(upstream: UpstreamRecord): { address: string; port: number } {
  let server = servers.get(upstream);
  if (server === undefined) {
    const url = new URL(upstream.baseUrl);
    server = { address: url.hostname, port: url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80 };
    servers.set(upstream, server);
  }
  return server;
}

/**
 * One span per model request when OpenTelemetry export is configured, in the GenAI semantic
 * conventions (contract section 20), continuing the client's W3C trace; one CLIENT child span per
 * upstream attempt, which the upstream is told is its parent. Without export (`enabled` false) only
 * the trace context is passed on: no span, no attribute object, no parse. The request's span ends
 * with its billing event, which carries its outcome, upstream, usage and attempts.
 */
export class RequestTracing {
  readonly enabled: boolean;
  private readonly spans = new Map<string, RequestSpan>();
  private readonly tracer: Tracer | null;
  private readonly captureContent: boolean;

  constructor(tracer: Tracer | null, options: { captureContent?: boolean } = {}) {
    this.tracer = tracer;
    this.enabled = tracer !== null;
    this.captureContent = options.captureContent ?? false;
  }

  /**
   * Starts the request's span (`{gen_ai.operation.name} {model}`); returns the `traceparent` for
   * upstream calls made without an attempt span of their own. Made only when spans are exported.
   */
  start(requestId: string, endpoint: string, model: string, headers: Record<string, string | string[] | undefined>): string {
    if (!this.tracer) return upstreamTraceparent(headers.traceparent);
    const parent = propagator.extract(ROOT_CONTEXT, headers, defaultTextMapGetter);
    const operation = OPERATION_NAMES[endpoint as EndpointName] ?? endpoint;
    const attributes: Attributes = {
      "gen_ai.operation.name": operation,
      "gen_ai.request.model": model,
      "gateway.endpoint": endpoint,
      "gateway.request_id": requestId,
    };
    const span = this.tracer.startSpan(`${operation} ${model}`, { kind: SpanKind.SERVER, attributes }, parent);
    this.spans.set(requestId, { span, facts: null, provider: null, stream: false });
    return traceparentOf(span);
  }

  /** The request's key, vendor, server option and settings (and its prompt, when content is captured). */
  describe(requestId: string, key: { id: string; vendorId: string; serverOption: string }, request: ParsedRequest, wire: Pick<WireFormat, "endpoint">): void {
    const entry = this.spans.get(requestId);
    if (!entry) return;
    entry.stream = request.stream;
    const attributes: Attributes = { "gateway.key_id": key.id, "gateway.vendor_id": key.vendorId, "gateway.server_option": key.serverOption };
    requestAttributes(request, wire.endpoint, attributes);
    if (this.captureContent) inputContent(request, wire.endpoint, attributes);
    entry.span.setAttributes(attributes);
  }

  /** Starts an upstream attempt's span, a child of the request's (null when the request has none). */
  attempt(requestId: string, target: Target, number: number, upstreamWire: WireFormat): AttemptSpan | null {
    const entry = this.spans.get(requestId);
    if (!entry || !this.tracer) return null;
    const operation = OPERATION_NAMES[upstreamWire.endpoint];
    const server = serverOf(target.upstream);
    const attributes: Attributes = {
      "gen_ai.operation.name": operation,
      "gen_ai.provider.name": PROVIDER_NAMES[target.upstream.shape],
      "gen_ai.request.model": target.model,
      "gen_ai.request.stream": entry.stream,
      "server.address": server.address,
      "server.port": server.port,
      "gateway.upstream": target.upstream.name,
      "gateway.attempt": number,
    };
    const span = this.tracer.startSpan(`${operation} ${target.model}`, { kind: SpanKind.CLIENT, attributes }, trace.setSpan(ROOT_CONTEXT, entry.span));
    return new AttemptSpan(span, entry, PROVIDER_NAMES[target.upstream.shape], new ResponseFacts(upstreamWire.endpoint, this.captureContent ? CONTENT_LIMIT : 0));
  }

  /** Ends the request's span with its billing event; `costNano` is what the request cost (null: not priced). */
  finish(event: BillingEvent, costNano: bigint | null = null): void {
    const entry = this.spans.get(event.requestId);
    if (!entry) return;
    this.spans.delete(event.requestId);
    const { span, facts } = entry;
    const usage = event.usage;
    const attributes: Attributes = {
      "gateway.upstream": event.upstream ?? "none",
      "gateway.upstream_model": event.upstreamModel ?? "none",
      "gateway.outcome": event.status,
      "gateway.estimated": event.estimated,
      "gateway.attempts": event.attempts?.length ?? 0,
      "gen_ai.usage.input_tokens": usage.inputTokens,
      "gen_ai.usage.output_tokens": usage.outputTokens,
      "gen_ai.usage.cache_read.input_tokens": usage.cachedInputTokens,
      "gen_ai.usage.cache_creation.input_tokens": usage.cacheWriteTokens,
      "gen_ai.usage.reasoning.output_tokens": usage.reasoningTokens,
    };
    if (entry.provider !== null) attributes["gen_ai.provider.name"] = entry.provider;
    if (costNano !== null) attributes["gateway.cost_usd"] = Number(costNano) / 1e9;
    if (event.stream && event.ttfbMs !== null) attributes["gen_ai.response.time_to_first_chunk"] = event.ttfbMs / 1000;
    if (event.upstreamModel !== null) attributes["gen_ai.response.model"] = event.upstreamModel;
    if (facts !== null) responseAttributes(facts, attributes, this.captureContent);
    if (event.status !== "ok") {
      const last = event.attempts?.at(-1);
      attributes["error.type"] = last !== undefined && last.cause !== "ok" ? last.cause : event.status;
      span.setStatus({ code: SpanStatusCode.ERROR, message: event.status });
    }
    span.setAttributes(attributes);
    span.end(event.finishedAt);
  }

  /** A request that ended without a billing event (refused before any upstream call). */
  release(requestId: string, error: unknown): void {
    const entry = this.spans.get(requestId);
    if (!entry) return;
    this.spans.delete(requestId);
    if (error) entry.span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
    entry.span.end();
  }
}

/** The answer's id, model, finish reasons (and output, when captured) as span attributes. */
function responseAttributes(facts: ResponseFacts, attributes: Attributes, captureContent: boolean): void {
  if (facts.id !== null) attributes["gen_ai.response.id"] = facts.id;
  if (facts.model !== null) attributes["gen_ai.response.model"] = facts.model;
  if (facts.finishReasons.length > 0) attributes["gen_ai.response.finish_reasons"] = facts.finishReasons;
  if (captureContent && (facts.output !== "" || facts.finishReasons.length > 0)) attributes["gen_ai.output.messages"] = outputContent(facts.output, facts.finishReasons);
}

/**
 * One upstream attempt's span (kind CLIENT): its upstream, HTTP status, cause, and what it read of
 * the answer. Its context is the `traceparent` the upstream receives.
 */
export class AttemptSpan implements AttemptObserver {
  readonly traceparent: string;
  private readonly span: Span;
  private readonly request: RequestSpan;
  private readonly provider: string;
  private readonly facts: ResponseFacts;

  constructor(span: Span, request: RequestSpan, provider: string, facts: ResponseFacts) {
    this.span = span;
    this.request = request;
    this.provider = provider;
    this.facts = facts;
    this.traceparent = traceparentOf(span);
  }

  event(event: EventSourceMessage, tracker: StreamTracker): void {
    this.facts.event(event, tracker);
  }

  body(parsed: unknown): void {
    this.facts.body(parsed);
  }

  /** Ends the span with the attempt's record; `outcome` is what it billed, when it answered. */
  end(attempt: Attempt, outcome: AttemptOutcome | null): void {
    const attributes: Attributes = { "gateway.attempt.cause": attempt.cause, "gateway.attempt.duration_ms": attempt.durationMs };
    if (attempt.status !== null) attributes["http.response.status_code"] = attempt.status;
    if (attempt.ttfbMs !== null && this.request.stream) attributes["gen_ai.response.time_to_first_chunk"] = attempt.ttfbMs / 1000;
    if (outcome !== null) {
      attributes["gen_ai.usage.input_tokens"] = outcome.usage.inputTokens;
      attributes["gen_ai.usage.output_tokens"] = outcome.usage.outputTokens;
      attributes["gen_ai.usage.cache_read.input_tokens"] = outcome.usage.cachedInputTokens;
      attributes["gen_ai.usage.cache_creation.input_tokens"] = outcome.usage.cacheWriteTokens;
      attributes["gen_ai.usage.reasoning.output_tokens"] = outcome.usage.reasoningTokens;
      attributes["gateway.estimated"] = outcome.estimated;
    }
    responseAttributes(this.facts, attributes, false);
    if (attempt.cause !== "ok") {
      attributes["error.type"] = attempt.cause;
      this.span.setStatus({ code: SpanStatusCode.ERROR, message: attempt.cause });
    }
    this.span.setAttributes(attributes);
    this.span.end();
    // The request's span reports the answer its last attempt read.
    this.request.facts = this.facts;
    this.request.provider = this.provider;
  }
}
