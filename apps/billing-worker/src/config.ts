import { z } from "zod";
import { envVars, parseEnv, redisEnvShape } from "@gateway/config";

/** The billing worker's whole configuration, read once at boot. */
export function loadBillingWorkerConfig(env: Record<string, string | undefined> = process.env) {
  return parseEnv("billing-worker", {
    /** Port of GET /healthz and GET /readyz (0 picks a free one). */
    PORT: envVars.port(8082),
    HOST: envVars.host(),
    DATABASE_URL: envVars.databaseUrl(),
    /** Upper bound of pooled PostgreSQL connections; each batch holds one for one statement. */
    DB_POOL_SIZE: envVars.positiveInt(10),
    /**
     * How long a pooled connection may sit idle before it is closed (0 = never). Each new
     * connection is a new Postgres backend that plans the ledger's statement again: with pg's 10 s,
     * every lull in traffic longer than that cost a reconnect per connection.
     */
    DB_IDLE_TIMEOUT_MS: z.coerce.number().int().min(0).max(86_400_000).default(300_000),
    /**
     * The ledger's batch statement kept prepared on each connection (planned once, not per batch:
     * planning is about half of Postgres's work for a batch). Set false behind a PgBouncer in
     * transaction mode older than 1.21, or with `max_prepared_statements = 0`.
     */
    DB_PREPARED_STATEMENTS: envVars.bool(true),
    ...redisEnvShape(),
    LOG_LEVEL: envVars.logLevel(),
    /**
     * Jobs this process holds at once (taken from the queue and locked, their events waiting for a
     * batch or being written). At least WORKER_BATCH_SIZE for full batches; twice as many lets the
     * next batch fill while one is written.
     */
    WORKER_CONCURRENCY: envVars.positiveInt(400),
    /** Most events written to the ledger in one statement (fewer when WORKER_CONCURRENCY is lower). */
    WORKER_BATCH_SIZE: envVars.positiveInt(200),
    /** Longest time an event waits for others to fill its batch (the queue's lag grows by up to this). */
    WORKER_BATCH_WAIT_MS: envVars.positiveInt(20),
    /**
     * How long a job's lock lives without renewal. A worker that dies mid-job leaves its jobs
     * active; they are handed to another worker once the lock expires.
     */
    WORKER_LOCK_DURATION_MS: envVars.positiveInt(30_000),
    /** How often this worker looks for jobs whose worker died. */
    WORKER_STALLED_INTERVAL_MS: envVars.positiveInt(30_000),
    /**
     * Times a job may be recovered from a dead worker before it is failed. Processing is
     * idempotent, so recovering is always safe; a failed billing job is only a last resort.
     */
    WORKER_MAX_STALLED_COUNT: envVars.positiveInt(5),
    /** How long prices read from Postgres are reused; a price change applies within this time. */
    PRICE_CACHE_TTL_MS: envVars.positiveInt(5_000),
    /**
     * How often proxy processes whose in-flight journal heartbeat ran out (killed, OOM) are looked
     * for; their open requests are then billed `interrupted` (contract section 14: within 60 s).
     */
    ORPHAN_SWEEP_INTERVAL_MS: envVars.positiveInt(2_000),
    /** How long one worker's claim on a dead process's journal lasts before another worker may take it over. */
    ORPHAN_CLAIM_MS: envVars.positiveInt(60_000),
    /** Time active jobs get to finish on SIGTERM; the rest are recovered by another worker. */
    SHUTDOWN_DEADLINE_MS: envVars.positiveInt(10_000),
  }, env);
}

export type BillingWorkerConfig = ReturnType<typeof loadBillingWorkerConfig>;
