// The scaled-out stack on one machine: 3 proxies, 2 control planes and 2 billing workers as real
// processes on free ports, one simulator, against one Redis (or a Redis Cluster) under a private
// prefix and one private PostgreSQL database. Migrated the way two control-plane pods would: two
// migration runs at once.
import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { createTestDatabase, type TestDatabase } from "@gateway/testing";
import { appAddress, runScript, startApp, type AppProcess } from "./app-process.ts";

const SIMULATOR_KEY = "sim-scale-proof-secret";
const MIGRATE_CLI = "packages/db/src/migrate-cli.ts";
/** Pooled Postgres connections per control plane and per worker. */
export const DB_POOL_SIZE = 3;

export interface ScaleStack {
  database: TestDatabase;
  prefix: string;
  simulator: AppProcess;
  controlPlanes: AppProcess[];
  workers: AppProcess[];
  proxies: AppProcess[];
  /** What each of the two simultaneous migration runs printed. */
  migrationOutputs: string[];
  /** A `vt_` token of the demo vendor, made with the operator CLI. */
  vendorToken: string;
  stop(): Promise<void>;
}

/** `redis` is the Redis part of every app's environment (REDIS_URL, maybe REDIS_CLUSTER_NODES). */
export async function startScaleStack(redis: Record<string, string>): Promise<ScaleStack> {
  const database = await createTestDatabase({ migrate: false });
  const prefix = `scale-${randomUUID().slice(0, 8)}`;
  const started: AppProcess[] = [];
  const stop = async () => {
    await Promise.all(started.splice(0).map((app) => app.stop()));
    if (!redis.REDIS_CLUSTER_NODES) await deleteKeys(redis.REDIS_URL!, `${prefix}:*`);
    await database.drop();
  };
  const start = async (name: string, script: string, env: Record<string, string>, port: number, portVariable?: string) => {
    const app = await startApp(name, script, { SHUTDOWN_DEADLINE_MS: "2000", ...env }, port, portVariable);
    started.push(app);
    return app;
  };
  try {
    const migrationOutputs = await Promise.all([1, 2].map(() => runScript(MIGRATE_CLI, ["deploy"], { DATABASE_URL: database.url })));
    const [simulatorAt, ...addresses] = await Promise.all(Array.from({ length: 8 }, () => appAddress()));
    const [controlPlanesAt, workersAt, proxiesAt] = [addresses.slice(0, 2), addresses.slice(2, 4), addresses.slice(4, 7)];
    const shared = { ...redis, REDIS_PREFIX: prefix, INTERNAL_TOKEN: "scale-proof-internal-token" };
    const postgres = { DATABASE_URL: database.url, DB_POOL_SIZE: String(DB_POOL_SIZE) };
    // Everything starts at once, as a fresh rollout would: both control planes apply the gateway
    // file together, and the proxies become ready when the routing snapshot appears.
    const [simulator, controlPlanes, workers, proxies] = await allStarted([
      start("simulator", "apps/simulator/src/main.ts", { SIMULATOR_API_KEY: SIMULATOR_KEY }, simulatorAt!.port, "SIMULATOR_PORT"),
      allStarted(controlPlanesAt.map(({ port }, index) =>
        start(`control-plane-${index}`, "apps/control-plane/src/main.ts", {
          ...shared,
          ...postgres,
          GATEWAY_CONFIG_FILE: "infra/demo/gateway.yaml",
          SIMULATOR_URL: simulatorAt!.url,
          IDEMPOTENCY_SECRET: "scale-proof-idempotency-secret",
        }, port),
      )),
      allStarted(workersAt.map(({ port }, index) => start(`billing-worker-${index}`, "apps/billing-worker/src/main.ts", { ...shared, ...postgres, WORKER_CONCURRENCY: "8" }, port))),
      allStarted(proxiesAt.map(({ port }, index) =>
        start(`proxy-${index}`, "apps/proxy/src/main.ts", {
          ...shared,
          CONTROL_PLANE_URL: controlPlanesAt[index % 2]!.url,
          SIMULATOR_API_KEY: SIMULATOR_KEY,
          // Every client here is 127.0.0.1: the slow-down of repeated 401s per address would time
          // that defence, not how fast a revocation spreads.
          AUTH_FREE_FAILURES: "1000",
        }, port),
      )),
    ]);
    const printed = await runScript("apps/control-plane/src/cli.ts", ["vendor-token", "create", "--vendor", "demo"], { ...shared, ...postgres, DB_POOL_SIZE: "1", LOG_LEVEL: "warn" });
    const vendorToken = (JSON.parse(printed) as { token: string }).token;
    return { database, prefix, simulator, controlPlanes, workers, proxies, migrationOutputs, vendorToken, stop };
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}

/** Promise.all that waits for every start to settle, so a failed start leaves none running unseen. */
async function allStarted<T extends readonly unknown[]>(starts: { [K in keyof T]: Promise<T[K]> }): Promise<T> {
  const settled = await Promise.allSettled(starts);
  const failed = settled.find((result) => result.status === "rejected");
  if (failed) throw failed.reason;
  return settled.map((result) => (result as PromiseFulfilledResult<unknown>).value) as unknown as T;
}

async function deleteKeys(url: string, pattern: string): Promise<void> {
  const redis = new Redis(url);
  try {
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", pattern, "COUNT", 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== "0");
  } finally {
    redis.disconnect();
  }
}
