// A gateway (control plane + in-process proxy + simulator) on a Redis of its own, for the tests
// that stop or restart Redis: the shared Redis other tests use is never touched.
import { randomUUID } from "node:crypto";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { BILLING_QUEUE, billingEventsOf, type BillingEvent } from "@gateway/contracts";
import { parseGatewayFile } from "@gateway/config";
import { createLogger } from "@gateway/logger";
import { redisKeys } from "@gateway/redis-store";
import { createTestDatabase, startPrivateRedis, type PrivateRedis, type PrivateRedisOptions, type TestDatabase } from "@gateway/testing";
import { startSimulator, type Simulator } from "@gateway/simulator";
import { applyGatewayFile, createControlPlaneServices, loadControlPlaneConfig, mintKey, type ControlPlaneServices } from "@gateway/control-plane";
import { loadProxyConfig } from "../src/config.ts";
import { startProxy, type RunningProxy } from "../src/server.ts";
import { SIMULATOR_SECRET, testGatewayYaml } from "./stack.ts";

const silent = createLogger({ name: "test", level: "silent" });

/** GET /v1/models answers a list, or the error envelope. */
type ModelsBody = { type?: string; error?: { type: string; code: string }; request_id?: string };

export interface PrivateRedisGateway {
  redis: PrivateRedis;
  controlPlane: ControlPlaneServices;
  proxy: RunningProxy;
  /** The billing queue as the worker sees it (same name and prefix as the proxy's). */
  queue: Queue;
  /** A key with limits far above any test traffic, so only a fault can refuse a request. */
  newKey(): Promise<string>;
  /** Every billing job's request id, with how many jobs it has. */
  jobsByRequest(): Promise<Map<string, number>>;
  /** GET /v1/models with `key`: the status and the envelope when refused. */
  models(key: string): Promise<{ status: number; body: ModelsBody; requestId: string | null; shouldRetry: string | null }>;
  close(): Promise<void>;
}

export async function startPrivateRedisGateway(options: { redis?: PrivateRedisOptions; proxyEnv?: Record<string, string> } = {}): Promise<PrivateRedisGateway> {
  const prefix = `test-${randomUUID().slice(0, 8)}`;
  let database: TestDatabase;
  let simulator: Simulator;
  let redis: PrivateRedis;
  const started = await Promise.allSettled([startPrivateRedis(options.redis), createTestDatabase(), startSimulator({ apiKey: SIMULATOR_SECRET })]);
  const failed = started.find((result) => result.status === "rejected");
  if (failed) {
    // Whatever did start must not outlive the failed setup (a private redis-server would).
    const [redisStart, databaseStart, simulatorStart] = started;
    if (redisStart.status === "fulfilled") await redisStart.value.destroy();
    if (databaseStart.status === "fulfilled") await databaseStart.value.drop();
    if (simulatorStart.status === "fulfilled") await simulatorStart.value.close();
    throw failed.reason;
  }
  [redis, database, simulator] = started.map((result) => (result as PromiseFulfilledResult<unknown>).value) as [PrivateRedis, TestDatabase, Simulator];
  let controlPlane: ControlPlaneServices | null = null;
  let proxy: RunningProxy;
  try {
    controlPlane = createControlPlaneServices(
      loadControlPlaneConfig({ DATABASE_URL: database.url, REDIS_URL: redis.url, REDIS_PREFIX: prefix, DB_POOL_SIZE: "4" }),
      silent,
    );
    await applyGatewayFile(controlPlane.db.prisma, controlPlane.records, parseGatewayFile(testGatewayYaml(simulator.url)));
    proxy = await startProxy(
      loadProxyConfig({ PORT: "0", METRICS_PORT: "0", REDIS_URL: redis.url, REDIS_PREFIX: prefix, SHUTDOWN_DEADLINE_MS: "5000", ...options.proxyEnv }),
      silent,
    );
  } catch (error) {
    await controlPlane?.close().catch(() => undefined);
    await simulator.close();
    await database.drop();
    await redis.destroy();
    throw error;
  }
  const queueConnection = new Redis(redis.url, { maxRetriesPerRequest: null });
  queueConnection.on("error", () => undefined);
  const queue = new Queue(BILLING_QUEUE, { connection: queueConnection, prefix: redisKeys(prefix).queuePrefix });
  queue.on("error", () => undefined);
  const vendor = await controlPlane.db.prisma.vendor.findUniqueOrThrow({ where: { name: "test-vendor" } });

  return {
    redis,
    controlPlane,
    proxy,
    queue,
    async newKey() {
      const minted = await mintKey(controlPlane.db.prisma, controlPlane.records, {
        vendorId: vendor.id, serverOption: "standard", name: "redis fault", quotaNano: null, expiresAt: null, rpm: 1_000_000, tpm: 1_000_000_000, metadata: {},
      });
      return minted.plaintext;
    },
    async jobsByRequest() {
      const jobs = await queue.getJobs(["waiting", "active", "completed", "failed", "delayed", "prioritized"]);
      const counts = new Map<string, number>();
      for (const event of jobs.flatMap((job) => billingEventsOf(job.data) as BillingEvent[])) {
        counts.set(event.requestId, (counts.get(event.requestId) ?? 0) + 1);
      }
      return counts;
    },
    async models(key) {
      const response = await fetch(`${proxy.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
      return { status: response.status, body: (await response.json()) as ModelsBody, requestId: response.headers.get("x-request-id"), shouldRetry: response.headers.get("x-should-retry") };
    },
    async close() {
      await proxy.close();
      await queue.close();
      queueConnection.disconnect();
      await controlPlane.close();
      await simulator.close();
      await database.drop();
      await redis.destroy();
    },
  };
}
