// PostgreSQL and Redis for tests. Where a container runtime answers, start them with
// testcontainers; otherwise (as on the project's machines and CI) use the running services.
// An explicit DATABASE_URL / REDIS_URL always wins; GATEWAY_TEST_SERVICES=local|containers forces a
// path. Resolved once per process (each vitest worker) and shared by its tests.
import type { StartedTestContainer } from "testcontainers";

export interface TestServices {
  /** A URL on the PostgreSQL server (database `postgres`); tests create their own databases on it. */
  databaseUrl: string;
  redisUrl: string;
  /** Stops containers started for this process (no-op for running services). */
  stop(): Promise<void>;
}

const LOCAL_DATABASE_URL = "postgresql://postgres@127.0.0.1:5432/postgres";
const LOCAL_REDIS_URL = "redis://127.0.0.1:6379";
const POSTGRES_IMAGE = "postgres:15-alpine";
const REDIS_IMAGE = "redis:7-alpine";

let resolving: Promise<TestServices> | undefined;

export function resolveTestServices(): Promise<TestServices> {
  resolving ??= resolve().catch((err: unknown) => {
    resolving = undefined;
    throw err;
  });
  return resolving;
}

async function resolve(): Promise<TestServices> {
  const mode = process.env.GATEWAY_TEST_SERVICES ?? "auto";
  const forced = mode === "containers";
  const envDb = forced ? undefined : process.env.DATABASE_URL;
  const envRedis = forced ? undefined : process.env.REDIS_URL;
  const useContainers = mode !== "local" && !(envDb && envRedis) && (forced || (await hasContainerRuntime()));
  if (!useContainers) return { databaseUrl: envDb ?? LOCAL_DATABASE_URL, redisUrl: envRedis ?? LOCAL_REDIS_URL, stop: async () => {} };

  const started: StartedTestContainer[] = [];
  const stop = async () => {
    resolving = undefined;
    await Promise.allSettled(started.splice(0).map((c) => c.stop()));
  };
  const run = async (start: () => Promise<Started>) => {
    const { container, url } = await start();
    started.push(container);
    return url;
  };
  const [db, redis] = await Promise.allSettled([envDb ?? run(startPostgres), envRedis ?? run(startRedis)]);
  if (db.status === "rejected" || redis.status === "rejected") {
    await stop();
    throw db.status === "rejected" ? db.reason : (redis as PromiseRejectedResult).reason;
  }
  return { databaseUrl: db.value, redisUrl: redis.value, stop };
}

interface Started {
  container: StartedTestContainer;
  url: string;
}

/** testcontainers rejects within milliseconds when no container runtime is reachable. */
async function hasContainerRuntime(): Promise<boolean> {
  try {
    const { getContainerRuntimeClient } = await import("testcontainers");
    await getContainerRuntimeClient();
    return true;
  } catch {
    return false;
  }
}

async function startPostgres(): Promise<Started> {
  const { GenericContainer, Wait } = await import("testcontainers");
  const container = await new GenericContainer(POSTGRES_IMAGE)
    .withEnvironment({ POSTGRES_HOST_AUTH_METHOD: "trust" })
    .withExposedPorts(5432)
    .withTmpFs({ "/var/lib/postgresql/data": "rw" })
    // The entrypoint restarts the server once after init; ready means the second announcement.
    .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
    .start();
  return { container, url: `postgresql://postgres@${container.getHost()}:${container.getMappedPort(5432)}/postgres` };
}

async function startRedis(): Promise<Started> {
  const { GenericContainer, Wait } = await import("testcontainers");
  const container = await new GenericContainer(REDIS_IMAGE)
    .withExposedPorts(6379)
    .withWaitStrategy(Wait.forLogMessage(/Ready to accept connections/))
    .start();
  return { container, url: `redis://${container.getHost()}:${container.getMappedPort(6379)}` };
}
