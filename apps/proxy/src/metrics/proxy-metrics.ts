import { childCache, Counter, counterChildren, Gauge, Histogram, histogramChildren, LATENCY_BUCKETS, type Registry } from "@gateway/metrics";
import { costOfUsage, type BillingEvent } from "@gateway/contracts";
import type { ServerOptionRecord } from "@gateway/redis-store";
import { unitPrices } from "../limits/request-bound.ts";
import { OPERATION_NAMES } from "../tracing/gen-ai-attributes.ts";
import type { EndpointName } from "../core/wire-format.ts";
import type { CircuitBreaker } from "../relay/circuit-breaker.ts";
import { UpstreamWindows } from "./upstream-window.ts";

/** The OTel GenAI metrics' bucket boundaries (gen-ai-metrics.md: token usage, durations, time to first token). */
const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];
const DURATION_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
const TTFT_BUCKETS = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

/** `gateway_upstream_circuit_state` values. */
const CIRCUIT_VALUE = { closed: 0, half_open: 1, open: 2 } as const;

/** A provider name the routing no longer knows (the upstream left the snapshot). */
const OTHER_PROVIDER = "_OTHER";

/** What the metrics read from the rest of the proxy, at scrape time or once per label set. */
export interface MetricSources {
  breaker: CircuitBreaker;
  billingPending: () => number;
  billingDropped: () => number;
  /** The provider (`gen_ai.provider.name`: the upstream's shape) of a model's upstream, looked up once per label set. */
  providerOf: (model: string, upstream: string) => string | null;
  /** The routing snapshot's version: label sets resolved against an older one are resolved again. */
  routingVersion: () => number;
  serverOption: (name: string) => ServerOptionRecord | undefined;
  /** Whether the proxy's Redis connection takes commands now (read at scrape time). */
  redisConnected: () => boolean;
}

/** The GenAI series of one (endpoint, model, upstream, upstream model), bound once. */
interface GenAiSeries {
  inputTokens: { observe(value: number): void };
  outputTokens: { observe(value: number): void };
  duration: { observe(value: number): void };
  ttft: { observe(value: number): void };
}

/**
 * The proxy's own metrics. Everything per request comes from its billing event (one per request,
 * with model, upstream, outcome, usage and its attempts), so the relay makes no metrics calls of
 * its own; every label value comes from the gateway file (canonical model names after routing,
 * upstream names, server options), never from a client or a key. Label children are bound once per
 * label set.
 */
export class ProxyMetrics {
  /** Each upstream's last minute, for the Redis health snapshot. */
  readonly windows = new UpstreamWindows();
  private readonly sources: MetricSources;
  private readonly requestsFor: ReturnType<typeof counterChildren>;
  private readonly durationFor: ReturnType<typeof histogramChildren>;
  private readonly ttfbFor: ReturnType<typeof histogramChildren>;
  private readonly attemptsFor: ReturnType<typeof counterChildren>;
  private readonly attemptDurationFor: ReturnType<typeof histogramChildren>;
  private readonly attemptTtfbFor: ReturnType<typeof histogramChildren>;
  private readonly tokensFor: ReturnType<typeof histogramChildren>;
  private readonly genAiDurationFor: ReturnType<typeof histogramChildren>;
  private readonly ttftFor: ReturnType<typeof histogramChildren>;
  private genAiFor: (endpoint: string, model: string, upstream: string, upstreamModel: string) => GenAiSeries;
  private genAiVersion = -1;
  /** USD per (model, server option), summed here and read into the counter at scrape time. */
  private readonly costs = new Map<string, Map<string, { usd: number }>>();

  constructor(registry: Registry, sources: MetricSources) {
    this.sources = sources;
    const registers = [registry];
    const labels = ["endpoint", "model", "upstream", "outcome"] as const;
    const requests = new Counter({ name: "gateway_model_requests_total", help: "Model requests by endpoint, public model, upstream and outcome (ok, error, client_aborted).", labelNames: labels, registers });
    const duration = new Histogram({ name: "gateway_model_request_duration_seconds", help: "Model request latency, start to last byte.", labelNames: labels, buckets: LATENCY_BUCKETS, registers });
    const ttfb = new Histogram({ name: "gateway_stream_ttfb_seconds", help: "Time to the first byte sent to the client.", labelNames: ["endpoint", "model", "upstream"], buckets: LATENCY_BUCKETS, registers });
    const attempts = new Counter({
      name: "gateway_upstream_attempts_total",
      help: "Upstream attempts by upstream and cause (ok, connect_error, timeout, http_429, http_5xx, http_4xx, stream_error, client_aborted, circuit_open); failures before the first byte fail over.",
      labelNames: ["upstream", "cause"],
      registers,
    });
    const attemptDuration = new Histogram({ name: "gateway_upstream_attempt_duration_seconds", help: "Upstream attempt duration, its start to its last byte or its failure.", labelNames: ["upstream"], buckets: LATENCY_BUCKETS, registers });
    const attemptTtfb = new Histogram({ name: "gateway_upstream_ttfb_seconds", help: "Upstream attempt's time to the answer's first byte (a stream's first event, a JSON answer's body).", labelNames: ["upstream"], buckets: LATENCY_BUCKETS, registers });
    const genAiLabels = ["gen_ai_operation_name", "gen_ai_provider_name", "gen_ai_request_model", "gen_ai_response_model"] as const;
    const tokens = new Histogram({
      name: "gen_ai_client_token_usage",
      help: "Tokens per request (OTel gen_ai.client.token.usage), by token type (input, output).",
      labelNames: ["gen_ai_operation_name", "gen_ai_provider_name", "gen_ai_request_model", "gen_ai_token_type"],
      buckets: TOKEN_BUCKETS,
      registers,
    });
    const genAiDuration = new Histogram({ name: "gen_ai_server_request_duration_seconds", help: "Model request duration (OTel gen_ai.server.request.duration), requests an upstream was tried for.", labelNames: genAiLabels, buckets: DURATION_BUCKETS, registers });
    const ttft = new Histogram({ name: "gen_ai_server_time_to_first_token_seconds", help: "Streamed requests' time to the first event sent (OTel gen_ai.server.time_to_first_token).", labelNames: genAiLabels, buckets: TTFT_BUCKETS, registers });
    this.requestsFor = counterChildren(requests);
    this.durationFor = histogramChildren(duration);
    this.ttfbFor = histogramChildren(ttfb);
    this.attemptsFor = counterChildren(attempts);
    this.attemptDurationFor = histogramChildren(attemptDuration);
    this.attemptTtfbFor = histogramChildren(attemptTtfb);
    this.tokensFor = histogramChildren(tokens);
    this.genAiDurationFor = histogramChildren(genAiDuration);
    this.ttftFor = histogramChildren(ttft);
    this.genAiFor = this.genAiSeries();
    const costs = this.costs;
    new Counter({
      name: "gateway_cost_usd_total",
      help: "What requests cost their keys (USD, at the server option's prices), by public model and server option.",
      labelNames: ["model", "server_option"],
      registers,
      collect() {
        this.reset();
        for (const [model, options] of costs) for (const [option, cost] of options) this.inc({ model, server_option: option }, cost.usd);
      },
    });
    const { breaker, billingPending, billingDropped, redisConnected } = sources;
    const windows = this.windows;
    new Gauge({
      name: "gateway_circuit_open",
      help: "1 for each upstream whose circuit is open (cooling down).",
      labelNames: ["upstream"],
      registers,
      collect() {
        this.reset();
        for (const upstream of breaker.openUpstreams()) this.set({ upstream }, 1);
      },
    });
    new Gauge({
      name: "gateway_upstream_circuit_state",
      help: "Each upstream's circuit: 0 closed, 1 half-open, 2 open (the worst process of a pod).",
      labelNames: ["upstream"],
      registers,
      aggregator: "max",
      collect() {
        this.reset();
        const now = Date.now();
        for (const upstream of new Set([...windows.names(), ...breaker.tracked()])) this.set({ upstream }, CIRCUIT_VALUE[breaker.state(upstream, now)]);
      },
    });
    new Gauge({
      name: "gateway_redis_connected",
      help: "1 while the proxy's Redis connection takes commands, 0 while Redis is away (the lowest process of a pod).",
      registers,
      aggregator: "min",
      collect() {
        this.set(redisConnected() ? 1 : 0);
      },
    });
    new Gauge({ name: "gateway_billing_buffer_pending", help: "Billing events waiting to reach the queue.", registers, collect() { this.set(billingPending()); } });
    new Gauge({ name: "gateway_billing_events_dropped", help: "Billing events refused because the buffer was full.", registers, collect() { this.set(billingDropped()); } });
  }

  /** The GenAI series bound per label set; made again when the routing changes (a provider may have). */
  private genAiSeries(): (endpoint: string, model: string, upstream: string, upstreamModel: string) => GenAiSeries {
    const cache = childCache((values): GenAiSeries => {
      const [endpoint, model, upstream, upstreamModel] = values as [string, string, string, string];
      const operation = OPERATION_NAMES[endpoint as EndpointName] ?? endpoint;
      const provider = this.sources.providerOf(model, upstream) ?? OTHER_PROVIDER;
      return {
        inputTokens: this.tokensFor(operation, provider, model, "input"),
        outputTokens: this.tokensFor(operation, provider, model, "output"),
        duration: this.genAiDurationFor(operation, provider, model, upstreamModel),
        ttft: this.ttftFor(operation, provider, model, upstreamModel),
      };
    });
    return (endpoint, model, upstream, upstreamModel) => cache(endpoint, model, upstream, upstreamModel);
  }

  /**
   * Records one request's end from its billing event; returns what it cost (nano-USD), null when
   * it used nothing or its server option prices nothing.
   */
  observeBilling(event: BillingEvent): bigint | null {
    const upstream = event.upstream ?? "none";
    const seconds = (event.finishedAt - event.startedAt) / 1000;
    this.requestsFor(event.endpoint, event.model, upstream, event.status).inc();
    this.durationFor(event.endpoint, event.model, upstream, event.status).observe(seconds);
    if (event.ttfbMs !== null) this.ttfbFor(event.endpoint, event.model, upstream).observe(event.ttfbMs / 1000);
    const attempts = event.attempts;
    if (attempts !== undefined && attempts.length > 0) {
      const now = Date.now();
      for (const attempt of attempts) {
        this.attemptsFor(attempt.upstream, attempt.cause).inc();
        this.attemptDurationFor(attempt.upstream).observe(attempt.durationMs / 1000);
        if (attempt.ttfbMs !== null) this.attemptTtfbFor(attempt.upstream).observe(attempt.ttfbMs / 1000);
        this.windows.observe(attempt, now);
      }
    }
    if (event.upstream === null || event.upstreamModel === null) return null;
    const version = this.sources.routingVersion();
    if (version !== this.genAiVersion) {
      this.genAiVersion = version;
      this.genAiFor = this.genAiSeries();
    }
    const series = this.genAiFor(event.endpoint, event.model, event.upstream, event.upstreamModel);
    series.duration.observe(seconds);
    if (event.stream === true && event.ttfbMs !== null) series.ttft.observe(event.ttfbMs / 1000);
    const usage = event.usage;
    if (usage.inputTokens + usage.outputTokens + usage.images === 0) return null;
    if (usage.inputTokens + usage.outputTokens > 0) {
      series.inputTokens.observe(usage.inputTokens);
      series.outputTokens.observe(usage.outputTokens);
    }
    return this.cost(event);
  }

  /** The request's cost at its server option's prices, added to its (model, server option) total. */
  private cost(event: BillingEvent): bigint | null {
    const option = this.sources.serverOption(event.serverOption);
    const prices = option ? unitPrices(option, event.model) : null;
    if (prices === null) return null;
    const nano = costOfUsage(event.usage, prices);
    let options = this.costs.get(event.model);
    if (options === undefined) this.costs.set(event.model, (options = new Map()));
    let total = options.get(event.serverOption);
    if (total === undefined) options.set(event.serverOption, (total = { usd: 0 }));
    total.usd += Number(nano) / 1e9;
    return nano;
  }
}
