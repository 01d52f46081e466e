import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import OpenAI from "openai";
import { parseGatewayFile } from "@gateway/config";
import { createLogger, type Logger } from "@gateway/logger";
import { createTestDatabase, resolveTestServices, type TestDatabase } from "@gateway/testing";
import { startSimulator, type Simulator } from "@gateway/simulator";
import { applyGatewayFile, loadControlPlaneConfig, mintKey, revokeKey, startControlPlane, type RunningControlPlane } from "@gateway/control-plane";
import { loadBillingWorkerConfig, startBillingWorker, type RunningBillingWorker } from "@gateway/billing-worker";
import { loadProxyConfig } from "../src/config.ts";
import { startProxy, type RunningProxy } from "../src/server.ts";
import { SIMULATOR_SECRET, testGatewayYaml } from "./stack.ts";

/** The models of the Responses state tests: every shape, and a model whose first target is Anthropic and second OpenAI. */
export const STATE_MODELS = ["gpt-test", "gpt-chat-only", "claude-test", "mixed-test", "gpt-reasoning"] as const;

/**
 * The whole stack stored Responses state runs on (contract section 18): the simulator, the control
 * plane's HTTP server (its internal reads), the billing worker (the responses-store queue into
 * Postgres) and the proxy, on a fresh database and Redis prefix. Two vendors, each with a server
 * option holding STATE_MODELS.
 */
export interface StateStack {
  simulator: Simulator;
  controlPlane: RunningControlPlane;
  worker: RunningBillingWorker;
  proxy: RunningProxy;
  redis: Redis;
  prefix: string;
  /** The proxy's environment, to start another proxy on the same stack. */
  proxyEnv: Record<string, string>;
  /** A fresh key of `vendor` ("test-vendor" by default) and an `openai` client on it. */
  client(vendor?: string): Promise<{ id: string; key: string; openai: OpenAI }>;
  revokeKey(id: string): Promise<void>;
  close(): Promise<void>;
}

const silent = createLogger({ name: "test", level: "silent" });

/** `logger` (silent by default) is every process's: the proxy, the control plane and the worker. */
export async function startStateStack(proxyEnv: Record<string, string> = {}, logger: Logger = silent): Promise<StateStack> {
  const { redisUrl } = await resolveTestServices();
  const database: TestDatabase = await createTestDatabase();
  const prefix = `test-${randomUUID().slice(0, 8)}`;
  const internal = { INTERNAL_TOKEN: `internal-${randomUUID()}` };
  const simulator = await startSimulator({ apiKey: SIMULATOR_SECRET });
  const controlPlane = await startControlPlane(loadControlPlaneConfig({ DATABASE_URL: database.url, REDIS_URL: redisUrl, REDIS_PREFIX: prefix, PORT: "0", ...internal }), logger);
  const yaml = testGatewayYaml(simulator.url)
    .replace("models:\n", 'models:\n  - { name: gpt-reasoning, prices: { input: "1.10", output: "4.40" }, capabilities: { max_output_tokens: 16384, reasoning: true }, targets: [ { upstream: sim-openai-a, model: o-upstream } ] }\n')
    .replace("server_options:\n", `server_options:\n  - { name: responses-state, models: [${STATE_MODELS.join(", ")}] }\n`)
    .replace("vendors:\n", "vendors:\n  - { name: other-vendor, server_options: [responses-state] }\n")
    .replace("server_options: [standard, premium] }", "server_options: [standard, premium, responses-state] }");
  const { prisma } = controlPlane.services.db;
  await applyGatewayFile(prisma, controlPlane.services.records, parseGatewayFile(yaml));
  const worker = await startBillingWorker(loadBillingWorkerConfig({ DATABASE_URL: database.url, REDIS_URL: redisUrl, REDIS_PREFIX: prefix, PORT: "0" }), logger);
  const env = { PORT: "0", METRICS_PORT: "0", REDIS_URL: redisUrl, REDIS_PREFIX: prefix, CONTROL_PLANE_URL: controlPlane.url, CIRCUIT_FAILURE_THRESHOLD: "1000", ...internal, ...proxyEnv };
  const proxy = await startProxy(loadProxyConfig(env), logger);
  const redis = new Redis(redisUrl);
  return {
    simulator,
    controlPlane,
    worker,
    proxy,
    redis,
    prefix,
    proxyEnv: env,
    async client(vendorName = "test-vendor") {
      const vendor = await prisma.vendor.findUniqueOrThrow({ where: { name: vendorName } });
      const minted = await mintKey(prisma, controlPlane.services.records, {
        vendorId: vendor.id,
        serverOption: "responses-state",
        name: "responses state",
        quotaNano: null,
        expiresAt: null,
        rpm: null,
        tpm: null,
        metadata: {},
      });
      const key = minted.plaintext;
      return { id: minted.row.id, key, openai: new OpenAI({ baseURL: `${proxy.url}/v1`, apiKey: key, maxRetries: 0 }) };
    },
    async revokeKey(id) {
      await revokeKey(prisma, controlPlane.services.records, id);
    },
    async close() {
      await proxy.close();
      await worker.close();
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
      await controlPlane.close();
      await simulator.close();
      await database.drop();
    },
  };
}
