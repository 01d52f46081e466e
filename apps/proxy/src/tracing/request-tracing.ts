import { ROOT_CONTEXT, SpanKind, SpanStatusCode, defaultTextMapGetter, type Span, type Tracer } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import type { BillingEvent } from "@gateway/contracts";
import { upstreamTraceparent } from "../relay/trace-context.ts";

const propagator = new W3CTraceContextPropagator();

/**
 * One span per model request when OpenTelemetry export is configured, continuing the client's
 * W3C trace; the upstream is told this span is its parent. Without export, only the trace context
 * is passed on (no span objects, no cost). Spans end with the request's billing event, which
 * carries its outcome, upstream and usage.
 */
export class RequestTracing {
  private readonly spans = new Map<string, Span>();
  private readonly tracer: Tracer | null;

  constructor(tracer: Tracer | null) {
    this.tracer = tracer;
  }

  /**
   * Starts the request's span (`<endpoint> <model>`); returns the `traceparent` for its upstream
   * calls. Its name and attributes are made only when spans are exported.
   */
  start(requestId: string, endpoint: string, model: string, headers: Record<string, string | string[] | undefined>): string {
    if (!this.tracer) return upstreamTraceparent(headers.traceparent);
    const parent = propagator.extract(ROOT_CONTEXT, headers, defaultTextMapGetter);
    const attributes = { "gen_ai.request.model": model, "gateway.endpoint": endpoint, "gateway.request_id": requestId };
    const span = this.tracer.startSpan(`${endpoint} ${model}`, { kind: SpanKind.SERVER, attributes }, parent);
    this.spans.set(requestId, span);
    const { traceId, spanId, traceFlags } = span.spanContext();
    return `00-${traceId}-${spanId}-${traceFlags.toString(16).padStart(2, "0")}`;
  }

  finish(event: BillingEvent): void {
    const span = this.spans.get(event.requestId);
    if (!span) return;
    this.spans.delete(event.requestId);
    span.setAttributes({
      "gateway.upstream": event.upstream ?? "none",
      "gateway.upstream_model": event.upstreamModel ?? "none",
      "gateway.outcome": event.status,
      "gen_ai.usage.input_tokens": event.usage.inputTokens,
      "gen_ai.usage.output_tokens": event.usage.outputTokens,
    });
    if (event.status !== "ok") span.setStatus({ code: SpanStatusCode.ERROR, message: event.status });
    span.end(event.finishedAt);
  }

  /** A request that ended without a billing event (refused before any upstream call). */
  release(requestId: string, error: unknown): void {
    const span = this.spans.get(requestId);
    if (!span) return;
    this.spans.delete(requestId);
    if (error) span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
    span.end();
  }
}
