import { randomUUID } from "node:crypto";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { BILLING_QUEUE, billingEventsOf, type BillingEvent } from "@gateway/contracts";
import { parseGatewayFile } from "@gateway/config";
import { createLogger } from "@gateway/logger";
import { redisKeys } from "@gateway/redis-store";
import { createTestDatabase, resolveTestServices } from "@gateway/testing";
import { startSimulator, type Simulator } from "@gateway/simulator";
import {
  applyGatewayFile,
  createControlPlaneServices,
  loadControlPlaneConfig,
  mintKey,
  revokeKey,
  type ControlPlaneServices,
} from "@gateway/control-plane";
import { loadProxyConfig } from "../src/config.ts";
import { startProxy, type RunningProxy } from "../src/server.ts";

export const SIMULATOR_SECRET = "sim-test-secret-0123456789";
process.env.TEST_SIMULATOR_KEY = SIMULATOR_SECRET;

/**
 * The gateway file of the tests: one simulator behind several upstream names, so failover is visible.
 * Second targets are `priority: 1` (failover only), so the first target serves while it is healthy.
 * Output maxima as the real models they stand for (gpt-4o-mini 16384, Claude 4.5 64000, an image
 * model none); the rest run under their family's default (4096).
 */
export function testGatewayYaml(simulatorUrl: string): string {
  return `
upstreams:
  - { name: sim-openai-a, shape: openai, base_url: "${simulatorUrl}/v1", secret_env: TEST_SIMULATOR_KEY, timeouts: { connect_ms: 1000, first_byte_ms: 1500, response_ms: 2500 } }
  - { name: sim-openai-b, shape: openai, base_url: "${simulatorUrl}/v1", secret_env: TEST_SIMULATOR_KEY, timeouts: { connect_ms: 1000, first_byte_ms: 1500, response_ms: 2500 } }
  - { name: sim-anthropic-a, shape: anthropic, base_url: "${simulatorUrl}", secret_env: TEST_SIMULATOR_KEY, timeouts: { connect_ms: 1000, first_byte_ms: 1500, response_ms: 2500 } }
  - { name: sim-anthropic-b, shape: anthropic, base_url: "${simulatorUrl}", secret_env: TEST_SIMULATOR_KEY, timeouts: { connect_ms: 1000, first_byte_ms: 1500, response_ms: 2500 } }
  - { name: dead-openai, shape: openai, base_url: "http://127.0.0.1:9/v1", timeouts: { connect_ms: 500, first_byte_ms: 1000 } }
  - { name: sim-openai-chat-only, shape: openai, base_url: "${simulatorUrl}/v1", secret_env: TEST_SIMULATOR_KEY, timeouts: { connect_ms: 1000, first_byte_ms: 1500, response_ms: 2500 }, capabilities: { responses: false } }
models:
  - name: gpt-test
    prices: { input: "0.15", output: "0.60", cached_input: "0.075" }
    capabilities: { max_output_tokens: 16384 }
    targets: [ { upstream: sim-openai-a, model: gpt-upstream-a }, { upstream: sim-openai-b, model: gpt-upstream-b, priority: 1 } ]
  - name: claude-test
    prices: { input: "3.00", output: "15.00", cached_input: "0.30" }
    capabilities: { max_output_tokens: 64000 }
    targets: [ { upstream: sim-anthropic-a, model: claude-upstream-a }, { upstream: sim-anthropic-b, model: claude-upstream-b, priority: 1 } ]
  - name: gpt-same-name
    prices: { input: "0.15", output: "0.60" }
    capabilities: { max_output_tokens: 16384 }
    targets: [ { upstream: sim-openai-a, model: gpt-same-name } ]
  - name: claude-same-name
    prices: { input: "3.00", output: "15.00" }
    capabilities: { max_output_tokens: 64000 }
    targets: [ { upstream: sim-anthropic-a, model: claude-same-name } ]
  - name: image-test
    prices: { image: "0.04" }
    capabilities: { max_output_tokens: 0 }
    targets: [ { upstream: sim-openai-a, model: image-upstream } ]
  - name: dead-test
    prices: { input: "1", output: "1" }
    targets: [ { upstream: dead-openai, model: nothing } ]
  - name: hidden-test
    prices: { input: "1", output: "1" }
    targets: [ { upstream: sim-openai-a, model: hidden-upstream } ]
  - name: claude-on-openai
    prices: { input: "3.00", output: "15.00", cached_input: "0.30" }
    targets: [ { upstream: sim-openai-a, model: claude-via-openai-a }, { upstream: sim-openai-b, model: claude-via-openai-b, priority: 1 } ]
  - name: gpt-on-anthropic
    prices: { input: "0.15", output: "0.60", cached_input: "0.075" }
    targets: [ { upstream: sim-anthropic-a, model: gpt-via-anthropic-a }, { upstream: sim-anthropic-b, model: gpt-via-anthropic-b, priority: 1 } ]
  - name: gpt-chat-only
    prices: { input: "0.15", output: "0.60", cached_input: "0.075" }
    targets: [ { upstream: sim-openai-chat-only, model: gpt-chat-only-upstream } ]
  - name: image-on-anthropic
    prices: { image: "0.04" }
    capabilities: { max_output_tokens: 0 }
    targets: [ { upstream: sim-anthropic-a, model: image-upstream } ]
  - name: mixed-test
    prices: { input: "1", output: "1" }
    targets: [ { upstream: sim-anthropic-a, model: mixed-anthropic }, { upstream: sim-openai-a, model: mixed-openai, priority: 1 } ]
server_options:
  - { name: standard, models: [gpt-test, claude-test, image-test, dead-test], rate_limits: { rpm: 600, tpm: 200000 } }
  - { name: premium, models: [hidden-test] }
  - { name: same-name, models: [gpt-same-name, claude-same-name, gpt-test] }
  - { name: cross-shape, models: [claude-on-openai, gpt-on-anthropic, gpt-chat-only, mixed-test, image-on-anthropic] }
vendors:
  - { name: test-vendor, server_options: [standard, premium] }
`;
}

/**
 * The test gateway file, edited by the test that needs more: each `replaceOnce` must find its text
 * exactly once (a test whose anchor is gone or doubled fails instead of running on another file);
 * `text()` is the result.
 */
export function gatewayYamlEditor(simulatorUrl: string): { replaceOnce: (search: string, replacement: string) => void; text: () => string } {
  let yaml = testGatewayYaml(simulatorUrl);
  return {
    replaceOnce: (search, replacement) => {
      const found = yaml.split(search).length - 1;
      if (found !== 1) throw new Error(`the test gateway file has ${JSON.stringify(search)} ${found} times, not once`);
      yaml = yaml.replace(search, replacement);
    },
    text: () => yaml,
  };
}

export interface Stack {
  simulator: Simulator;
  proxy: RunningProxy;
  controlPlane: ControlPlaneServices;
  prefix: string;
  /** A fresh active key on the `standard` server option (plaintext). */
  mintKey(options?: { serverOption?: string }): Promise<{ id: string; key: string }>;
  revokeKey(id: string): Promise<void>;
  /** Billing events queued for a request id (after flushing the proxy's buffer). */
  billingEvents(requestId: string): Promise<BillingEvent[]>;
  close(): Promise<void>;
}

const silent = createLogger({ name: "test", level: "silent" });

export async function startStack(proxyEnv: Record<string, string> = {}): Promise<Stack> {
  const services = await resolveTestServices();
  const database = await createTestDatabase();
  const prefix = `test-${randomUUID().slice(0, 8)}`;
  const simulator = await startSimulator({ apiKey: SIMULATOR_SECRET });
  const controlPlane = createControlPlaneServices(
    loadControlPlaneConfig({ DATABASE_URL: database.url, REDIS_URL: services.redisUrl, REDIS_PREFIX: prefix, DB_POOL_SIZE: "4" }),
    silent,
  );
  await applyGatewayFile(controlPlane.db.prisma, controlPlane.records, parseGatewayFile(testGatewayYaml(simulator.url)));
  const proxy = await startProxy(
    loadProxyConfig({ PORT: "0", METRICS_PORT: "0", REDIS_URL: services.redisUrl, REDIS_PREFIX: prefix, CIRCUIT_FAILURE_THRESHOLD: "1000", ...proxyEnv }),
    silent,
  );
  const vendor = await controlPlane.db.prisma.vendor.findUniqueOrThrow({ where: { name: "test-vendor" } });
  const queueConnection = new Redis(services.redisUrl, { maxRetriesPerRequest: null });
  const queue = new Queue(BILLING_QUEUE, { connection: queueConnection, prefix: redisKeys(prefix).queuePrefix });

  return {
    simulator,
    proxy,
    controlPlane,
    prefix,
    async mintKey(options = {}) {
      const minted = await mintKey(controlPlane.db.prisma, controlPlane.records, {
        vendorId: vendor.id,
        serverOption: options.serverOption ?? "standard",
        name: "test key",
        quotaNano: null,
        expiresAt: null,
        rpm: null,
        tpm: null,
        metadata: {},
      });
      return { id: minted.row.id, key: minted.plaintext };
    },
    async revokeKey(id) {
      await revokeKey(controlPlane.db.prisma, controlPlane.records, id);
    },
    async billingEvents(requestId) {
      await proxy.services.billing.flush();
      const jobs = await queue.getJobs(["waiting", "active", "completed", "failed", "delayed", "prioritized"]);
      return jobs.flatMap((job) => billingEventsOf(job.data) as BillingEvent[]).filter((event) => event.requestId === requestId);
    },
    async close() {
      await proxy.close();
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
      queueConnection.disconnect();
      const redis = controlPlane.redis;
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length > 0) await redis.del(...keys);
      await controlPlane.close();
      await simulator.close();
      await database.drop();
    },
  };
}
