import { envVars, parseEnv, redisEnvShape } from "@gateway/config";
import { z } from "zod";

/** The proxy's whole configuration, read once at boot. */
export function loadProxyConfig(env: Record<string, string | undefined> = process.env) {
  return parseEnv("proxy", {
    /** Port the client-facing API listens on (0 = any free port). */
    PORT: envVars.port(8080),
    HOST: envVars.host(),
    /**
     * Processes serving PORT (node:cluster, one primary supervising them); unset = the cores this
     * container may use. 1 = a single process, no primary.
     */
    PROXY_PROCESSES: z.coerce.number().int().min(1).max(256).optional(),
    /**
     * GET /metrics is served on this port (0 = any free port), not on PORT: the metrics name every
     * tenant's traffic and the upstreams, and PORT is what clients reach. In a cluster the primary
     * serves it with every worker's counts summed.
     */
    METRICS_PORT: envVars.port(9090),
    /** The metrics port's address: loopback unless the scraper comes from elsewhere (a pod's address in k8s). */
    METRICS_HOST: envVars.host(),
    /** Also serve GET /metrics on PORT, to every client (the old behaviour; only behind a private network). */
    METRICS_PUBLIC: envVars.bool(false),
    /** Redis holding key records, the routing snapshot and the billing queue. */
    ...redisEnvShape(),
    LOG_LEVEL: envVars.logLevel(),
    /**
     * Peers whose `x-forwarded-for` is believed (a load balancer or ingress in front): then the
     * client is the nearest untrusted address in it, for the 401 throttle and the /api relay.
     */
    TRUST_PROXY: envVars.trustProxy(),
    /** 401s per client address per minute answered at once; later ones are delayed (up to 2 s). */
    AUTH_FREE_FAILURES: envVars.positiveInt(20),
    /** The `service` field of GET /v1. */
    SERVICE_NAME: z.string().min(1).default("llm-gateway"),
    /** Largest accepted request body (contract: default 10 MiB). */
    BODY_LIMIT_BYTES: envVars.positiveInt(10 * 1024 * 1024),
    /** Deepest JSON nesting accepted in a request body (contract section 13); deeper is a 400. */
    JSON_MAX_DEPTH: envVars.positiveInt(128),
    /** How long a key record stays in the in-process cache; pub/sub evicts sooner on change. */
    KEY_CACHE_TTL_MS: envVars.positiveInt(60_000),
    /** How long "no such key" is remembered, so floods of bad keys do not hit Redis. */
    KEY_NEGATIVE_TTL_MS: envVars.positiveInt(2_000),
    /**
     * The longest a request waits for Redis before its first upstream call: its admission (then a
     * 503 with retry-after) and its journal entry's write (then it goes on unjournaled, logged).
     */
    REDIS_WAIT_MS: z.coerce.number().int().min(100).max(600_000).default(2_000),
    /**
     * Finished requests' limit and quota settlements are summed per key off the response path and
     * ride along with the key's next admission (booked first, in the same script call); when none
     * comes within this many ms (0: one event-loop turn) they are written with one call per key.
     * Longer holds other replicas' view of the reservations longer (conservative, never over).
     */
    LIMIT_SETTLE_BATCH_MS: z.coerce.number().int().min(0).max(1000).default(2),
    /**
     * Requests an admission call may lease to this process (counted at once, with their
     * reservations' worth of quota and budget held as the lease's slice; at most an eighth of what
     * is left of any limit), admitted from it without a Redis call. Below 2: no leases.
     */
    LIMIT_LEASE_REQUESTS: z.coerce.number().int().min(0).max(100_000).default(200),
    /** How long a lease admits before what it did not use goes back. */
    LIMIT_LEASE_MS: z.coerce.number().int().min(1).max(60_000).default(1_000),
    /** Upstream attempts per request across the model's ordered targets. */
    MAX_ATTEMPTS: envVars.positiveInt(3),
    /** Consecutive failures that open a target's circuit, and how long it stays open. */
    CIRCUIT_FAILURE_THRESHOLD: envVars.positiveInt(3),
    CIRCUIT_COOLDOWN_MS: envVars.positiveInt(30_000),
    /** Longest pause between two chunks of a started stream before it is ended with an error. */
    STREAM_IDLE_TIMEOUT_MS: envVars.positiveInt(300_000),
    /** Pooled keep-alive connections per upstream origin. */
    UPSTREAM_CONNECTIONS: envVars.positiveInt(256),
    /** Billing events kept in memory while Redis is away; past this the oldest wait is refused. */
    BILLING_BUFFER_LIMIT: envVars.positiveInt(100_000),
    /** How long SIGTERM waits for in-flight requests before closing them. */
    SHUTDOWN_DEADLINE_MS: envVars.positiveInt(30_000),
    /** OTLP/HTTP collector base URL (e.g. http://otel-collector:4318); unset = no span export. */
    OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
    OTEL_SERVICE_NAME: z.string().min(1).default("llm-gateway-proxy"),
    /**
     * Put prompts and completions on the exported spans (`gen_ai.input.messages`,
     * `gen_ai.system_instructions`, `gen_ai.output.messages`, each at most 16 KiB of text). Off by
     * default: they hold whatever the tenants send.
     */
    OTEL_CAPTURE_CONTENT: envVars.bool(false),
    /** Control plane base URL (its origin): /v1/usage reads from it, /api/* and /console/* are relayed to it. */
    CONTROL_PLANE_URL: z.url().default("http://127.0.0.1:8081"),
    /** Longest wait for the control plane's response head, and between two of its body chunks. */
    CONTROL_PLANE_TIMEOUT_MS: envVars.positiveInt(30_000),
    /**
     * A client that leaves mid-stream: how long the upstream is still read for its final usage
     * (billed exactly when it comes) before the call is aborted and an estimate is billed.
     */
    DISCONNECT_DRAIN_MS: z.coerce.number().int().min(0).max(600_000).default(3_000),
    /** Longest wait between two chunks of a relayed `/api` request body before the relay is ended (408). */
    CONTROL_PLANE_BODY_TIMEOUT_MS: envVars.positiveInt(10_000),
    /** Keep-alive connections to the control plane for the `/api` and `/console` relay (a pool apart from `/v1/usage`'s). */
    API_RELAY_CONNECTIONS: envVars.positiveInt(64),
    /** Keep-alive connections to the control plane for `GET /v1/usage` (never shared with the `/api` relay). */
    USAGE_CONNECTIONS: envVars.positiveInt(32),
    /** Relayed `/api` requests one vendor credential (or all unauthenticated callers together) may have open at once per process. */
    API_RELAY_VENDOR_CONCURRENCY: envVars.positiveInt(16),
    /** How often open requests' progress is written to the in-flight journal (what a killed process is billed for). */
    JOURNAL_CHECKPOINT_MS: envVars.positiveInt(1_000),
    /** Largest body counted locally by `/v1/messages/count_tokens` (bytes); larger is a 413. */
    TOKEN_COUNT_MAX_BYTES: envVars.positiveInt(2 * 1024 * 1024),
    /** Days a stored Responses response or conversation is kept (contract section 18); swept by the billing worker after. */
    RESPONSES_RETENTION_DAYS: envVars.positiveInt(30),
    /** Seconds the Redis copy of stored Responses state lives (Postgres is the store of record, read through the control plane after). */
    RESPONSES_CACHE_TTL_SECONDS: envVars.positiveInt(3_600),
    /** Shared secret for the control plane's internal endpoints. */
    INTERNAL_TOKEN: envVars.secret("dev-internal-token-change-me"),
  }, env);
}

export type ProxyConfig = ReturnType<typeof loadProxyConfig>;
