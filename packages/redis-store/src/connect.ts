import { Cluster, Redis, type RedisOptions } from "ioredis";

/** A single Redis (direct or found through Sentinel) or a Redis Cluster; both take the same commands. */
export type RedisClient = Redis | Cluster;

/**
 * `autoPipelining`: commands issued in the same event-loop turn go to Redis in one write (ioredis
 * auto-pipelining; per node on a Cluster). For the proxy's hot path, where many requests admit in
 * the same turn: one syscall on each side instead of one per command, same replies, same order.
 */
type ConnectOptions = { failFast?: boolean; name?: string; autoPipelining?: boolean; extra?: RedisOptions };

/**
 * How long a fail-fast command waits for its reply. A Redis that hangs with its socket open (a
 * stopped process, a stalled host) answers nothing and closes nothing: without a bound every
 * command (a key's record, the routes, the journal) would wait for as long. One timer per command
 * sent; a request admitted from its key's lease sends none. An admission call has a shorter bound
 * of its own in the proxy's limiter, which gives back what a late admission holds: a reply past
 * this one is dropped unread.
 */
const FAIL_FAST_COMMAND_TIMEOUT_MS = 5_000;

/**
 * One way to open Redis for every app. `failFast` (the proxy's hot path) turns off the offline
 * queue so a command fails at once while Redis is away instead of waiting behind a reconnect, and
 * fails one that gets no reply within FAIL_FAST_COMMAND_TIMEOUT_MS (Redis hung).
 */
export function connectRedis(url: string, options: ConnectOptions = {}): Redis {
  return new Redis(url, connectionOptions(options));
}

/** Resolves once `redis` can take commands (a fail-fast connection refuses them until then). */
export async function redisReady(redis: RedisClient, timeoutMs = 10_000): Promise<void> {
  if (redis.status === "ready") return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      redis.off("ready", onReady);
      reject(new Error(`Redis did not become ready within ${timeoutMs} ms`));
    }, timeoutMs);
    const onReady = () => {
      clearTimeout(timer);
      resolve();
    };
    redis.once("ready", onReady);
  });
}

/** A `host:port` of a Redis Cluster seed node or a Sentinel. */
export interface RedisNode {
  host: string;
  port: number;
}

/**
 * Where Redis is, as each app's config reads it: one URL, or a Cluster's seed nodes, or Sentinels
 * watching a master group. With nodes or sentinels, REDIS_URL still gives the user, password and
 * TLS (`rediss://`), and for Sentinel the database number; its host and port are not used.
 */
export interface RedisTopology {
  REDIS_URL: string;
  REDIS_CLUSTER_NODES?: readonly RedisNode[] | undefined;
  REDIS_SENTINELS?: readonly RedisNode[] | undefined;
  REDIS_SENTINEL_NAME?: string | undefined;
}

/**
 * `connectRedis` for any topology. A Cluster is opened with the same per-command behaviour as a
 * single connection (its nodes get the same retry and offline-queue settings), so callers need not
 * know which one they hold.
 */
export function connectRedisFromConfig(topology: RedisTopology, options: ConnectOptions = {}): RedisClient {
  const clusterNodes = topology.REDIS_CLUSTER_NODES ?? [];
  const sentinels = topology.REDIS_SENTINELS ?? [];
  if (clusterNodes.length > 0 && sentinels.length > 0) {
    throw new Error("REDIS_CLUSTER_NODES and REDIS_SENTINELS are both set: a deployment uses a Cluster or Sentinel, not both");
  }
  if (clusterNodes.length === 0 && sentinels.length === 0) return connectRedis(topology.REDIS_URL, options);
  const { enableOfflineQueue, retryStrategy, ...perConnection } = connectionOptions(options);
  const auth = authFromUrl(topology.REDIS_URL);
  if (sentinels.length > 0) {
    return new Redis({ ...auth, ...perConnection, enableOfflineQueue, retryStrategy, sentinels: [...sentinels], name: topology.REDIS_SENTINEL_NAME ?? "mymaster" });
  }
  // A Cluster has only database 0.
  const { db: _db, ...clusterAuth } = auth;
  return new Cluster([...clusterNodes], {
    enableOfflineQueue,
    enableAutoPipelining: options.autoPipelining ?? false,
    clusterRetryStrategy: retryStrategy,
    // BullMQ reads maxRetriesPerRequest (null for its blocking connection) from here.
    redisOptions: { ...clusterAuth, ...perConnection },
  });
}

function connectionOptions(options: ConnectOptions): RedisOptions {
  return {
    connectionName: options.name,
    maxRetriesPerRequest: options.failFast ? 1 : null,
    enableOfflineQueue: !options.failFast,
    ...(options.failFast ? { commandTimeout: FAIL_FAST_COMMAND_TIMEOUT_MS } : {}),
    retryStrategy: (attempt) => Math.min(attempt * 100, 2000),
    enableAutoPipelining: options.autoPipelining ?? false,
    ...options.extra,
  };
}

function authFromUrl(url: string): Pick<RedisOptions, "username" | "password" | "tls" | "db"> {
  const parsed = new URL(url);
  const database = parsed.pathname.replace(/^\//, "");
  return {
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
    ...(parsed.protocol === "rediss:" ? { tls: {} } : {}),
    ...(database ? { db: Number(database) } : {}),
  };
}
