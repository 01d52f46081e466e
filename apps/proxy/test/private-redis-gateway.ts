// A gateway (control plane + in-process proxy + simulator) on a Redis of its own, for the tests
// that stop, restart or freeze Redis: the shared Redis other tests use is never touched.
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

/** A server option with no rate limits: its keys (no quota, no budget) have no limits at all. */
const UNLIMITED_OPTION = "unlimited";

/** One chat completion's answer: the status, the envelope when refused, and the retry headers. */
export interface ChatAnswer {
  status: number;
  body: { error?: { type: string; code: string } };
  requestId: string;
  retryAfter: string | null;
}

export interface PrivateRedisGateway {
  redis: PrivateRedis;
  controlPlane: ControlPlaneServices;
  proxy: RunningProxy;
  /** The billing queue as the worker sees it (same name and prefix as the proxy's). */
  queue: Queue;
  /**
   * A key with RPM and TPM far above any test traffic (so only a fault can refuse it: Redis away,
   * and no lease of this process admits it), and `quotaNano` when given; `limits: false`, a key
   * with no limits at all, which the proxy serves from its key cache without Redis.
   */
  newKey(options?: { limits?: boolean; quotaNano?: bigint }): Promise<string>;
  /** Every billing job's request id, with how many jobs it has. */
  jobsByRequest(): Promise<Map<string, number>>;
  /** GET /v1/models with `key`: the status and the envelope when refused. */
  models(key: string): Promise<{ status: number; body: ModelsBody; requestId: string | null; shouldRetry: string | null }>;
  /** POST /v1/chat/completions (not streamed) with `key`. */
  chat(key: string): Promise<ChatAnswer>;
  /**
   * SIGSTOP: the private redis-server freezes with its sockets open, as a hung Redis (a stalled VM,
   * a disk that blocks it) does: commands are accepted by the kernel and never answered.
   */
  freeze(): Promise<void>;
  /** SIGCONT: the frozen Redis runs again and answers what it was sent. */
  thaw(): void;
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
    const file = parseGatewayFile(testGatewayYaml(simulator.url));
    const standard = file.server_options.find((option) => option.name === "standard")!;
    file.server_options.push({ ...standard, name: UNLIMITED_OPTION, rate_limits: { rpm: null, tpm: null } });
    file.vendors.find((vendor) => vendor.name === "test-vendor")!.server_options.push(UNLIMITED_OPTION);
    await applyGatewayFile(controlPlane.db.prisma, controlPlane.records, file);
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
  /** The frozen redis-server's pid, while it is frozen. */
  let frozen: number | null = null;
  const thaw = () => {
    if (frozen === null) return;
    process.kill(frozen, "SIGCONT");
    frozen = null;
  };

  return {
    redis,
    controlPlane,
    proxy,
    queue,
    async newKey(options = {}) {
      const limits = options.limits ?? true;
      const minted = await mintKey(controlPlane.db.prisma, controlPlane.records, {
        vendorId: vendor.id,
        serverOption: limits ? "standard" : UNLIMITED_OPTION,
        name: "redis fault",
        quotaNano: limits ? (options.quotaNano ?? null) : null,
        expiresAt: null,
        rpm: limits ? 1_000_000 : null,
        tpm: limits ? 1_000_000_000 : null,
        metadata: {},
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
    async chat(key) {
      const response = await fetch(`${proxy.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "gpt-test", max_tokens: 16, messages: [{ role: "user", content: "hello" }] }),
      });
      return { status: response.status, body: (await response.json()) as ChatAnswer["body"], requestId: response.headers.get("x-request-id") ?? "", retryAfter: response.headers.get("retry-after") };
    },
    async freeze() {
      const pid = Number(/process_id:(\d+)/.exec(await controlPlane!.redis.info("server"))?.[1]);
      if (!Number.isInteger(pid) || pid <= 0) throw new Error("redis-server's pid not found in INFO server");
      process.kill(pid, "SIGSTOP");
      frozen = pid;
    },
    thaw,
    async close() {
      thaw();
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
