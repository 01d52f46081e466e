import { envVars, parseEnv, redisEnvShape } from "@gateway/config";
import { z } from "zod";

/** The control plane's whole configuration, read once at boot. */
export function loadControlPlaneConfig(env: Record<string, string | undefined> = process.env) {
  return parseEnv("control-plane", {
    /** Port of the vendor API and the internal endpoints. */
    PORT: envVars.port(8081),
    HOST: envVars.host(),
    DATABASE_URL: envVars.databaseUrl(),
    /** Upper bound of pooled PostgreSQL connections of this process. */
    DB_POOL_SIZE: envVars.positiveInt(10),
    ...redisEnvShape(),
    LOG_LEVEL: envVars.logLevel(),
    /** 401s per client address per minute answered at once; later ones are delayed (up to 2 s). */
    AUTH_FREE_FAILURES: envVars.positiveInt(20),
    /** The gateway YAML applied at start (optional; `cli apply FILE` applies one at any time). */
    GATEWAY_CONFIG_FILE: z.string().min(1).optional(),
    /** Shared secret the proxy presents on /internal/* (usage lookups). */
    INTERNAL_TOKEN: envVars.secret("dev-internal-token-change-me"),
    /** Key that encrypts stored Idempotency-Key responses (they hold a plaintext key). */
    IDEMPOTENCY_SECRET: envVars.secret("dev-idempotency-secret-change-me"),
    /** Largest accepted request body on the vendor API. */
    BODY_LIMIT_BYTES: envVars.positiveInt(1024 * 1024),
    SHUTDOWN_DEADLINE_MS: envVars.positiveInt(10_000),
    /** How often the control plane checks that Redis still holds its records (rebuilt when lost). */
    REDIS_WATCH_INTERVAL_MS: envVars.positiveInt(2_000),
    /**
     * Peers whose `x-forwarded-for` and `x-request-id` are believed (Express `trust proxy`): the
     * proxies relaying /api. Comma-separated names (loopback, linklocal, uniquelocal), addresses or
     * CIDR ranges; `false` trusts none. Anyone else is known by its socket address.
     */
    TRUST_PROXY: envVars.trustProxy(),
    /**
     * Webhooks to the vendor (contract section 19): `true` lets a webhook URL resolve to a private,
     * loopback or link-local address, or one of this host's own (refused with a 400 otherwise).
     */
    WEBHOOK_ALLOW_PRIVATE: envVars.bool(false),
    /** How long one delivery attempt waits for the vendor's answer. */
    WEBHOOK_TIMEOUT_MS: envVars.positiveInt(10_000),
    /** Pause after the first failed attempt; each later one doubles (with jitter) up to WEBHOOK_RETRY_MAX_MS. */
    WEBHOOK_RETRY_BASE_MS: envVars.positiveInt(10_000),
    WEBHOOK_RETRY_MAX_MS: envVars.positiveInt(3_600_000),
    /** A delivery still unacknowledged this long after its event is `failed`. */
    WEBHOOK_GIVE_UP_MS: envVars.positiveInt(86_400_000),
    /** How often the deliverer looks for due deliveries (it also wakes at once after an emit in this process). */
    WEBHOOK_POLL_INTERVAL_MS: envVars.positiveInt(1_000),
    /** Deliveries one control plane sends at once. */
    WEBHOOK_CONCURRENCY: envVars.positiveInt(16),
    /** Stripe's secret key (`sk_live_...` / `sk_test_...`): card payments and auto top-up; unset: checkout answers 503. */
    STRIPE_SECRET_KEY: z.string().min(1).optional(),
    /** The signing secret of the `/webhooks/stripe` endpoint (`whsec_...`); unset: every webhook is refused (503). */
    STRIPE_WEBHOOK_SECRET: z.string().min(1).optional(),
    /** Where the Stripe SDK sends its calls instead of https://api.stripe.com (a local fake in tests). */
    STRIPE_API_BASE: z.url({ protocol: /^https?$/ }).optional(),
    /** How often prepaid customers' balances are checked (customer.balance_low, auto top-up with STRIPE_SECRET_KEY); 0: never. */
    WALLET_CHECK_INTERVAL_MS: z.coerce.number().int().min(0).default(10_000),
    /** How often subscriptions whose period ended are renewed (the plan's price charged to the wallet) or lapse; 0: never. */
    SUBSCRIPTION_RENEW_INTERVAL_MS: z.coerce.number().int().min(0).default(60_000),
  }, env);
}

export type ControlPlaneConfig = ReturnType<typeof loadControlPlaneConfig>;
