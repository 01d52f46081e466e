import { isIP } from "node:net";
import { z } from "zod";

/** Thrown when the environment does not parse; the message names every bad variable. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

/** The development defaults of secrets (`envVars.secret`): refused when NODE_ENV is production. */
const DEVELOPMENT_SECRETS = new Set<string>();

/**
 * Parses `env` once with `shape` and returns a frozen, typed config. Each app calls this at boot;
 * nothing else reads process.env. With `NODE_ENV=production`, a secret left at (or set to) its
 * development default stops start-up: anyone who read this repository knows that value.
 */
export function parseEnv<Shape extends z.ZodRawShape>(
  app: string,
  shape: Shape,
  env: Record<string, string | undefined> = process.env,
): Readonly<z.infer<z.ZodObject<Shape>>> {
  const result = z.object(shape).safeParse(env);
  if (!result.success) {
    const lines = result.error.issues.map((issue) => `  ${issue.path.join(".") || "(env)"}: ${issue.message}`);
    throw new ConfigError(`${app}: invalid configuration\n${lines.join("\n")}`);
  }
  if (env.NODE_ENV === "production") {
    const exposed = Object.entries(result.data as Record<string, unknown>).filter(([, value]) => typeof value === "string" && DEVELOPMENT_SECRETS.has(value));
    if (exposed.length > 0) {
      const lines = exposed.map(([name]) => `  ${name}: the development default is refused in production; set a random secret of at least 16 characters`);
      throw new ConfigError(`${app}: invalid configuration\n${lines.join("\n")}`);
    }
  }
  return Object.freeze(result.data);
}

/** Reusable variable parsers with the defaults every app shares. */
/** Express `trust proxy` names; anything else must be an IP address or a CIDR range. */
const TRUST_NAMES = new Set(["loopback", "linklocal", "uniquelocal"]);
const trustEntry = (entry: string) => TRUST_NAMES.has(entry) || isIP(entry.replace(/\/\d{1,3}$/, "")) !== 0;

export const envVars = {
  /**
   * Peers whose `x-forwarded-for` is believed (load balancers, the proxy in front of the control
   * plane): `loopback`, `linklocal`, `uniquelocal`, addresses or CIDR ranges, comma-separated;
   * `false` for none. The client's address is then the nearest one in the chain not trusted.
   * Loopback only by default: trusting private ranges would let any client inside them (another
   * pod, a VPN user) name its own address and rotate it past the 401 slow-down; a deployment
   * behind a load balancer names it (infra/k8s does).
   */
  trustProxy: (fallback = "loopback") =>
    z
      .string()
      .default(fallback)
      .transform((text) => (text.trim() === "false" ? [] : text.split(",").map((entry) => entry.trim()).filter(Boolean)))
      .refine((entries) => entries.every(trustEntry), "give loopback, linklocal, uniquelocal, IP addresses or CIDR ranges, comma-separated, or false"),
  port: (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback),
  host: () => z.string().min(1).default("127.0.0.1"),
  databaseUrl: () =>
    z.string().regex(/^postgres(ql)?:\/\//, "must be a postgresql:// URL").default("postgresql://postgres@127.0.0.1:5432/gateway"),
  redisUrl: () => z.string().regex(/^rediss?:\/\//, "must be a redis:// URL").default("redis://127.0.0.1:6379"),
  /**
   * `host:port,host:port`: Redis Cluster seed nodes or Sentinels. Unset or empty: none. Hostnames
   * and IPv4 only (an IPv6 address needs a hostname).
   */
  redisNodes: () =>
    z
      .string()
      .optional()
      .transform((text, ctx) => {
        if (text === undefined || text.trim() === "") return undefined;
        const nodes: { host: string; port: number }[] = [];
        for (const entry of text.split(",")) {
          const match = /^\s*([^\s:,]+):(\d{1,5})\s*$/.exec(entry);
          if (!match?.[1] || Number(match[2]) > 65535) {
            ctx.addIssue({ code: "custom", message: `"${entry.trim()}" is not host:port (give a comma-separated list of host:port)` });
            return z.NEVER;
          }
          nodes.push({ host: match[1], port: Number(match[2]) });
        }
        return nodes;
      }),
  /** The master group name the Sentinels know (their own default is `mymaster`). */
  redisSentinelName: () => z.string().min(1).default("mymaster"),
  /** Prefix of every Redis key and BullMQ queue, so runs and tenants never share data. */
  redisPrefix: () => z.string().regex(/^[A-Za-z0-9:_-]*$/, "letters, digits, ':', '_' and '-' only").default("gw"),
  logLevel: () => z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** A shared secret: at least 16 characters; `developmentDefault` only outside production. */
  secret: (developmentDefault: string) => {
    DEVELOPMENT_SECRETS.add(developmentDefault);
    return z.string().min(16, "at least 16 characters").default(developmentDefault);
  },
  positiveInt: (fallback: number) => z.coerce.number().int().positive().default(fallback),
  bool: (fallback: boolean) =>
    z
      .enum(["true", "false", "1", "0"])
      .default(fallback ? "true" : "false")
      .transform((value) => value === "true" || value === "1"),
};

/** The Redis variables every app reads (single node, Cluster or Sentinel) and the key prefix. */
export function redisEnvShape() {
  return {
    REDIS_URL: envVars.redisUrl(),
    /** Redis Cluster seed nodes (`host:port,...`); REDIS_URL then gives only credentials and TLS. */
    REDIS_CLUSTER_NODES: envVars.redisNodes(),
    /** Sentinels (`host:port,...`) watching REDIS_SENTINEL_NAME; REDIS_URL then gives credentials, TLS, db. */
    REDIS_SENTINELS: envVars.redisNodes(),
    REDIS_SENTINEL_NAME: envVars.redisSentinelName(),
    /** Prefix of every key and of the billing queue (`${REDIS_PREFIX}:{bull}`): the same in every app. */
    REDIS_PREFIX: envVars.redisPrefix(),
  };
}

/** Runs `load`, printing a ConfigError and exiting 1 instead of throwing a stack trace. */
export function loadOrExit<T>(load: () => T): T {
  try {
    return load();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}
