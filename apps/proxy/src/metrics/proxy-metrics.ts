import { Counter, counterChildren, Gauge, Histogram, histogramChildren, LATENCY_BUCKETS, type Registry } from "@gateway/metrics";
import type { BillingEvent } from "@gateway/contracts";

/**
 * The proxy's own metrics. Per-model figures come from the billing event (one per request, with
 * model, upstream, outcome and time to first byte), so the relay needs no metrics calls of its own.
 */
export class ProxyMetrics {
  private readonly requests: Counter<"endpoint" | "model" | "upstream" | "outcome">;
  private readonly duration: Histogram<"endpoint" | "model" | "upstream" | "outcome">;
  private readonly ttfb: Histogram<"endpoint" | "model" | "upstream">;
  private readonly attempts: Counter<"upstream" | "result">;
  private readonly requestsFor: ReturnType<typeof counterChildren>;
  private readonly durationFor: ReturnType<typeof histogramChildren>;
  private readonly ttfbFor: ReturnType<typeof histogramChildren>;
  private readonly attemptsFor: ReturnType<typeof counterChildren>;

  constructor(registry: Registry, sources: { openCircuits: () => string[]; billingPending: () => number; billingDropped: () => number }) {
    const registers = [registry];
    const labels = ["endpoint", "model", "upstream", "outcome"] as const;
    this.requests = new Counter({ name: "gateway_model_requests_total", help: "Model requests by endpoint, public model, upstream and outcome (ok, error, client_aborted).", labelNames: labels, registers });
    this.duration = new Histogram({ name: "gateway_model_request_duration_seconds", help: "Model request latency, start to last byte.", labelNames: labels, buckets: LATENCY_BUCKETS, registers });
    this.ttfb = new Histogram({ name: "gateway_stream_ttfb_seconds", help: "Time to the first byte sent to the client.", labelNames: ["endpoint", "model", "upstream"], buckets: LATENCY_BUCKETS, registers });
    this.attempts = new Counter({ name: "gateway_upstream_attempts_total", help: "Upstream attempts by upstream and result; failures before the first byte lead to failover.", labelNames: ["upstream", "result"], registers });
    this.requestsFor = counterChildren(this.requests);
    this.durationFor = histogramChildren(this.duration);
    this.ttfbFor = histogramChildren(this.ttfb);
    this.attemptsFor = counterChildren(this.attempts);
    new Gauge({
      name: "gateway_circuit_open",
      help: "1 for each upstream whose circuit is open (cooling down).",
      labelNames: ["upstream"],
      registers,
      collect() {
        this.reset();
        for (const upstream of sources.openCircuits()) this.set({ upstream }, 1);
      },
    });
    new Gauge({ name: "gateway_billing_buffer_pending", help: "Billing events waiting to reach the queue.", registers, collect() { this.set(sources.billingPending()); } });
    new Gauge({ name: "gateway_billing_events_dropped", help: "Billing events refused because the buffer was full.", registers, collect() { this.set(sources.billingDropped()); } });
  }


  observeBilling(event: BillingEvent): void {
    const upstream = event.upstream ?? "none";
    this.requestsFor(event.endpoint, event.model, upstream, event.status).inc();
    this.durationFor(event.endpoint, event.model, upstream, event.status).observe((event.finishedAt - event.startedAt) / 1000);
    if (event.ttfbMs !== null) this.ttfbFor(event.endpoint, event.model, upstream).observe(event.ttfbMs / 1000);
  }

  observeAttempt(upstream: string, ok: boolean): void {
    this.attemptsFor(upstream, ok ? "success" : "failure").inc();
  }
}
