import { Queue } from "bullmq";
import { Pool } from "./relay/undici-pool.ts";
import { BILLING_QUEUE, RESPONSES_STORE_QUEUE } from "@gateway/contracts";
import { createLogger, type Logger } from "@gateway/logger";
import { connectRedisFromConfig, LimitStore, RecordStore, redisReady, type RedisClient } from "@gateway/redis-store";
import type { ProxyConfig } from "./config.ts";
import { KeyCache } from "./auth/key-cache.ts";
import { TokenCounterPool } from "./tokens/token-counter-pool.ts";
import { RoutingTable } from "./routing/routing-table.ts";
import { CircuitBreaker } from "./relay/circuit-breaker.ts";
import { UpstreamClient } from "./relay/upstream-client.ts";
import { BillingProducer } from "./billing/billing-producer.ts";
import { Limiter } from "./limits/limiter.ts";
import { InFlightRegistry } from "./relay/in-flight.ts";
import { InFlightJournal } from "./journal/in-flight-journal.ts";
import { endRefusedRequests, recheckOpenRequests } from "./relay/key-revocation.ts";
import { ProxyMetrics } from "./metrics/proxy-metrics.ts";
import { UpstreamHealthPublisher } from "./metrics/upstream-health-publisher.ts";
import { RequestTracing } from "./tracing/request-tracing.ts";
import { createTracer } from "./tracing/tracer-provider.ts";
import { PROVIDER_NAMES } from "./tracing/gen-ai-attributes.ts";
import { createRegistry, type Registry } from "@gateway/metrics";
import { clientAddressResolver } from "@gateway/http";
import type { IncomingMessage } from "node:http";
import { ResponsesStateStore } from "./responses-state/state-store.ts";

/** Every client the proxy uses, built once at boot and passed around as one object. */
export interface ProxyServices {
  config: ProxyConfig;
  logger: Logger;
  redis: RedisClient;
  subscriber: RedisClient;
  records: RecordStore;
  keyCache: KeyCache;
  routing: RoutingTable;
  breaker: CircuitBreaker;
  upstreams: UpstreamClient;
  /**
   * Keep-alive connections to the control plane, one pool per use: slow or stalled `/api` uploads
   * fill only the relay's, never the one `/v1/usage` (every tenant's) is answered from.
   */
  controlPlane: { relay: Pool; usage: Pool };
  /** Local token counting (count_tokens on an OpenAI-shape model), on worker threads off the event loop. */
  tokenCounter: TokenCounterPool;
  queue: Queue;
  billing: BillingProducer;
  /** Stored Responses state (contract section 18): Redis, the responses-store queue, the control plane's reads. */
  responsesState: ResponsesStateStore;
  limiter: Limiter;
  /** Every admitted request of this process while it runs (the journal's checkpoints, ending a revoked key's streams). */
  inFlight: InFlightRegistry;
  registry: Registry;
  metrics: ProxyMetrics;
  tracing: RequestTracing;
  /** Writes this process's upstream health to Redis every 5 s (for the console). */
  upstreamHealth: UpstreamHealthPublisher;
  /** The client's address: the socket's peer, or past TRUST_PROXY peers, the nearest untrusted x-forwarded-for entry. */
  clientAddress: (request: IncomingMessage) => string;
  state: { shuttingDown: boolean };
  close(): Promise<void>;
}

export async function createProxyServices(config: ProxyConfig, logger = createLogger({ name: "proxy", level: config.LOG_LEVEL })): Promise<ProxyServices> {
  const redis = connectRedisFromConfig(config, { failFast: true, autoPipelining: true, name: "proxy" });
  const subscriber = connectRedisFromConfig(config, { name: "proxy-subscriber" });
  const queueConnection = connectRedisFromConfig(config, { name: "proxy-billing" });
  for (const connection of [redis, subscriber, queueConnection]) {
    connection.on("error", (error: Error) => logger.warn({ err: error.message }, "redis connection error"));
  }
  const records = new RecordStore(redis, config.REDIS_PREFIX);
  const keyCache = new KeyCache(records, { ttlMs: config.KEY_CACHE_TTL_MS, negativeTtlMs: config.KEY_NEGATIVE_TTL_MS });
  const routing = new RoutingTable(records, logger);
  const queue = new Queue(BILLING_QUEUE, { connection: queueConnection, prefix: records.keys.queuePrefix });
  queue.on("error", (error: Error) => logger.warn({ err: error.message }, "billing queue error"));
  const responsesQueue = new Queue(RESPONSES_STORE_QUEUE, { connection: queueConnection, prefix: records.keys.queuePrefix });
  responsesQueue.on("error", (error: Error) => logger.warn({ err: error.message }, "responses-store queue error"));
  const limitStore = new LimitStore(redis, config.REDIS_PREFIX, {
    settleBatchMs: config.LIMIT_SETTLE_BATCH_MS,
    leaseRequests: config.LIMIT_LEASE_REQUESTS,
    leaseMs: config.LIMIT_LEASE_MS,
    renewAhead: true,
    onWriteError: (error) => logger.warn({ err: (error as Error).message }, "limit lease not given back; Redis drops it later"),
  });
  const limiter = new Limiter(limitStore, logger, config.REDIS_WAIT_MS);
  const registry = createRegistry("proxy");
  const breaker = new CircuitBreaker({ threshold: config.CIRCUIT_FAILURE_THRESHOLD, cooldownMs: config.CIRCUIT_COOLDOWN_MS });
  const metrics = new ProxyMetrics(registry, {
    breaker,
    // Read at scrape time only, after everything below exists.
    billingPending: () => billing.pending,
    billingDropped: () => billing.dropped,
    // Once per label set (and routing version): the provider of a model's upstream, by its shape.
    providerOf: (modelName, upstream) => {
      const model = routing.model(modelName);
      const shape = model && routing.targets(model).find((target) => target.upstream.name === upstream)?.upstream.shape;
      return shape ? PROVIDER_NAMES[shape] : null;
    },
    routingVersion: () => routing.version,
    serverOption: (name) => routing.serverOption(name),
    redisConnected: () => redis.status === "ready",
  });
  const upstreamHealth = new UpstreamHealthPublisher({ redis, prefix: config.REDIS_PREFIX, windows: metrics.windows, breaker, logger });
  const exporter = await createTracer(config.OTEL_EXPORTER_OTLP_ENDPOINT, config.OTEL_SERVICE_NAME);
  const tracing = new RequestTracing(exporter?.tracer ?? null, { captureContent: config.OTEL_CAPTURE_CONTENT });
  // Every request ends in exactly one billing event: limits, metrics and spans settle there, and
  // its journal entry stays as it is until the queue has the event.
  let journal: InFlightJournal | null = null;
  const billing = new BillingProducer(queue, logger, config.BILLING_BUFFER_LIMIT, (event) => {
    journal?.recorded(event.requestId);
    limiter.settle(event);
    const costNano = metrics.observeBilling(event);
    tracing.finish(event, costNano);
  });

  const inFlight = new InFlightRegistry();
  await records.subscribe(
    subscriber,
    (event) => {
      if (event.type === "key_changed") {
        keyCache.invalidate(event.hash);
        void endRefusedRequests(inFlight, records, logger, event.hash);
      } else if (event.version !== routing.version) void routing.refresh();
    },
    () => {
      // Events were missed while disconnected: re-read every cached key and the routes, and the
      // keys of the requests still open (a key revoked meanwhile still ends its streams).
      keyCache.expireAll();
      void recheckOpenRequests(inFlight, records, logger);
      void routing.refresh();
    },
  );
  // Start serving with the routes loaded when Redis is there; without it, start degraded and let
  // the refresh timer and the subscription catch up.
  await redisReady(redis).catch((error: unknown) => logger.warn({ err: (error as Error).message }, "redis not ready at start"));
  await routing.refresh();
  // A backstop for a missed event: the snapshot is small and read rarely, every 30 s; every second
  // while none is loaded (a proxy started while Redis was empty serves once the control plane has
  // restored it, without a restart).
  let lastRefresh = Date.now();
  const refreshTimer = setInterval(() => {
    if (routing.loaded && Date.now() - lastRefresh < 30_000) return;
    lastRefresh = Date.now();
    void routing.refresh();
  }, 1_000);
  refreshTimer.unref();

  // Vendor traffic is light; a bound keeps a burst from opening sockets without end.
  const controlPlane = {
    relay: new Pool(new URL(config.CONTROL_PLANE_URL).origin, { connections: config.API_RELAY_CONNECTIONS, keepAliveTimeout: 30_000, connect: { timeout: 5_000 } }),
    usage: new Pool(new URL(config.CONTROL_PLANE_URL).origin, { connections: config.USAGE_CONNECTIONS, keepAliveTimeout: 30_000, connect: { timeout: 5_000 } }),
  };
  const services: ProxyServices = {
    config,
    logger,
    redis,
    subscriber,
    records,
    keyCache,
    routing,
    breaker,
    upstreams: new UpstreamClient({ connections: config.UPSTREAM_CONNECTIONS }),
    controlPlane,
    // One thread: counting is rare, and a process per core already fills the machine's cores.
    tokenCounter: new TokenCounterPool({ threads: 1, maxQueued: 64, idleMs: 30_000 }),
    queue,
    billing,
    responsesState: new ResponsesStateStore({
      redis,
      queue: responsesQueue,
      prefix: config.REDIS_PREFIX,
      cacheTtlSeconds: config.RESPONSES_CACHE_TTL_SECONDS,
      // The usage pool: light internal reads, never queued behind relayed /api uploads.
      controlPlane: controlPlane.usage,
      internalToken: config.INTERNAL_TOKEN,
      logger,
    }),
    limiter,
    inFlight,
    registry,
    metrics,
    tracing,
    upstreamHealth,
    clientAddress: clientAddressResolver(config.TRUST_PROXY),
    state: { shuttingDown: false },
    async close() {
      clearInterval(refreshTimer);
      await upstreamHealth.stop();
      await billing.close(config.SHUTDOWN_DEADLINE_MS);
      await journal?.stop();
      // Leases end, and the last settlements (the billing flush above booked them) reach Redis before it closes.
      await limitStore.close().catch((error: unknown) => logger.warn({ err: (error as Error).message }, "limit settlements not written at shutdown"));
      await exporter?.shutdown().catch(() => undefined);
      await services.upstreams.close();
      await Promise.all([services.controlPlane.relay.close(), services.controlPlane.usage.close(), services.tokenCounter.close()]);
      await queue.close();
      await responsesQueue.close();
      subscriber.disconnect();
      redis.disconnect();
      queueConnection.disconnect();
    },
  };
  journal = new InFlightJournal({
    redis,
    prefix: config.REDIS_PREFIX,
    inFlight: services.inFlight,
    reservation: (requestId) => limiter.reservation(requestId),
    processTag: limitStore.processTag,
    checkpointMs: config.JOURNAL_CHECKPOINT_MS,
    writeAheadWaitMs: config.REDIS_WAIT_MS,
    logger,
  });
  billing.onQueued = (events) => journal?.queued(events);
  journal.start();
  upstreamHealth.start();
  return services;
}
