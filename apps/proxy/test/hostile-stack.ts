// The real stack the hostile-client suite (issue 35) and the isolation script run against:
// Postgres (a database of its own), Redis (a prefix of its own), the simulator, the control plane
// (the vendor API), the billing worker, and proxy replicas as real processes (`node src/main.ts`),
// each with its metrics on a port of its own. Keys are minted through the vendor API.
// No vitest import here: scripts/isolation.ts starts the same stack.
import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { parseGatewayFile, type GatewayFile } from "@gateway/config";
import { createLogger } from "@gateway/logger";
import { LimitStore } from "@gateway/redis-store";
import { createTestDatabase, freePort, resolveTestServices, type TestDatabase } from "@gateway/testing";
import { startSimulator, type Simulator } from "@gateway/simulator";
import { applyGatewayFile, createVendorToken, loadControlPlaneConfig, startControlPlane, type RunningControlPlane } from "@gateway/control-plane";
import { loadBillingWorkerConfig, startBillingWorker, type RunningBillingWorker } from "@gateway/billing-worker";
import { SIMULATOR_SECRET } from "./stack.ts";
import { spawnProxy, type ProxyProcess } from "./replicas.ts";

/** Output maxima of the suite's models (their `max_output_tokens`): small, so a bound above them is easy to send. */
export const MODEL_MAX_OUTPUT = { "gpt-h": 1000, "claude-h": 1200 } as const;
export type HostileModel = keyof typeof MODEL_MAX_OUTPUT;
/** USD per million tokens (so nano-USD per token is 1000 times these). */
export const PRICES = { "gpt-h": { input: 2, output: 10 }, "claude-h": { input: 3, output: 15 } } as const;

function gatewayYaml(simulatorUrl: string, withCapabilities: boolean): string {
  const capabilities = (model: HostileModel) => (withCapabilities ? `, capabilities: { max_output_tokens: ${MODEL_MAX_OUTPUT[model]} }` : "");
  return `
upstreams:
  - { name: sim-openai, shape: openai, base_url: "${simulatorUrl}/v1", secret_env: TEST_SIMULATOR_KEY, timeouts: { connect_ms: 2000, first_byte_ms: 10000 } }
  - { name: sim-anthropic, shape: anthropic, base_url: "${simulatorUrl}", secret_env: TEST_SIMULATOR_KEY, timeouts: { connect_ms: 2000, first_byte_ms: 10000 } }
models:
  - { name: gpt-h, aliases: ["gpt-h-alias"], prices: { input: "${PRICES["gpt-h"].input}", output: "${PRICES["gpt-h"].output}" }, targets: [ { upstream: sim-openai, model: gpt-h-upstream } ]${capabilities("gpt-h")} }
  - { name: claude-h, aliases: ["claude-h-alias"], prices: { input: "${PRICES["claude-h"].input}", output: "${PRICES["claude-h"].output}" }, targets: [ { upstream: sim-anthropic, model: claude-h-upstream } ]${capabilities("claude-h")} }
server_options:
  - { name: hostile, models: [gpt-h, claude-h] }
vendors:
  - { name: hostile-vendor, server_options: [hostile] }
  - { name: hostile-neighbour, server_options: [hostile] }
`;
}

/**
 * The gateway file, with each model's `max_output_tokens` (contract sections 14 and 15) when the
 * gateway file takes it; before that lands the models run under their family's default.
 */
export function hostileGatewayFile(simulatorUrl: string): GatewayFile {
  try {
    return parseGatewayFile(gatewayYaml(simulatorUrl, true));
  } catch {
    return parseGatewayFile(gatewayYaml(simulatorUrl, false));
  }
}

export interface Replica extends ProxyProcess {
  metricsUrl: string;
  /** Everything the process (and its workers) printed since it started. */
  output(): string;
}

export interface MintOptions {
  quota?: string | null;
  budget?: { limit: string; period: "day" | "week" | "month" } | null;
  rpm?: number | null;
  tpm?: number | null;
}

export interface LedgerRow {
  requestId: string;
  /** The public model name (an alias resolves to its model). */
  model: string;
  status: string;
  estimated: boolean;
  inputTokens: number;
  outputTokens: number;
  costNano: bigint;
  startedAt: Date;
}

export interface HostileStack {
  simulator: Simulator;
  controlPlane: RunningControlPlane;
  worker: RunningBillingWorker;
  replicas: Replica[];
  prefix: string;
  vendorToken: string;
  limits: LimitStore;
  mintKey(options?: MintOptions): Promise<{ id: string; key: string }>;
  /** Every ledger row of a key. */
  ledger(keyId: string): Promise<LedgerRow[]>;
  /** Waits (up to `timeoutMs`) until every id in `requestIds` has a ledger row, then returns the key's rows. */
  ledgerWith(keyId: string, requestIds: string[], timeoutMs?: number): Promise<LedgerRow[]>;
  close(): Promise<void>;
}

export interface HostileStackOptions {
  replicas?: number;
  /** Extra environment for every proxy replica. */
  proxyEnv?: Record<string, string>;
  controlPlaneEnv?: Record<string, string>;
}

const silent = createLogger({ name: "hostile", level: "silent" });

export async function startHostileStack(options: HostileStackOptions = {}): Promise<HostileStack> {
  const { redisUrl } = await resolveTestServices();
  const prefix = `test-${randomUUID().slice(0, 8)}`;
  const internal = { INTERNAL_TOKEN: `internal-${randomUUID()}` };
  const opened: { database?: TestDatabase; simulator?: Simulator; controlPlane?: RunningControlPlane; worker?: RunningBillingWorker; replicas: Replica[] } = { replicas: [] };
  const close = async () => {
    await Promise.all(opened.replicas.map((replica) => replica.stop()));
    await opened.worker?.close();
    const redis = opened.controlPlane?.services.redis;
    if (redis) {
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length > 0) await redis.del(...keys);
    }
    await opened.controlPlane?.close();
    await opened.simulator?.close();
    await opened.database?.drop();
  };
  try {
    const database = (opened.database = await createTestDatabase());
    const simulator = (opened.simulator = await startSimulator({ apiKey: SIMULATOR_SECRET }));
    const controlPlane = (opened.controlPlane = await startControlPlane(
      loadControlPlaneConfig({ DATABASE_URL: database.url, REDIS_URL: redisUrl, REDIS_PREFIX: prefix, PORT: "0", AUTH_FREE_FAILURES: "100000", ...internal, ...options.controlPlaneEnv }),
      silent,
    ));
    const { prisma } = controlPlane.services.db;
    await applyGatewayFile(prisma, controlPlane.services.records, hostileGatewayFile(simulator.url));
    const vendorToken = (await createVendorToken(prisma, { vendor: "hostile-vendor", name: "hostile", scopes: ["keys:create", "keys:read", "keys:revoke", "keys:update", "usage:read"] })).plaintext;
    opened.worker = await startBillingWorker(loadBillingWorkerConfig({ DATABASE_URL: database.url, REDIS_URL: redisUrl, REDIS_PREFIX: prefix, PORT: "0" }), silent);
    const env = {
      REDIS_URL: redisUrl,
      REDIS_PREFIX: prefix,
      TEST_SIMULATOR_KEY: SIMULATOR_SECRET,
      CONTROL_PLANE_URL: controlPlane.url,
      AUTH_FREE_FAILURES: "100000",
      LOG_LEVEL: "warn",
      ...internal,
      ...options.proxyEnv,
    };
    opened.replicas = await Promise.all(
      Array.from({ length: options.replicas ?? 3 }, async () => {
        const metricsPort = await freePort();
        const proxy = await spawnProxy({ ...env, METRICS_PORT: String(metricsPort) });
        let printed = "";
        const keep = (chunk: Buffer) => (printed += chunk.toString());
        proxy.child.stdout?.on("data", keep);
        proxy.child.stderr?.on("data", keep);
        return { ...proxy, metricsUrl: `http://127.0.0.1:${metricsPort}`, output: () => printed };
      }),
    );
    const ledger = async (keyId: string): Promise<LedgerRow[]> => {
      const rows = await prisma.usageRecord.findMany({
        where: { apiKeyId: keyId },
        select: { requestId: true, model: true, status: true, estimated: true, inputTokens: true, outputTokens: true, costNano: true, startedAt: true },
      });
      // Token columns are BIGINT (issue 35): read as numbers, exact up to 2^53.
      return rows.map((row) => ({ ...row, inputTokens: Number(row.inputTokens), outputTokens: Number(row.outputTokens) }));
    };
    return {
      simulator,
      controlPlane,
      worker: opened.worker,
      replicas: opened.replicas,
      prefix,
      vendorToken,
      limits: new LimitStore(controlPlane.services.redis, prefix),
      async mintKey(mint = {}) {
        const body = {
          server_option: "hostile",
          name: "hostile",
          quota: mint.quota ?? null,
          budget: mint.budget ?? null,
          rate_limits: { rpm: mint.rpm ?? null, tpm: mint.tpm ?? null },
        };
        const response = await fetch(`${controlPlane.url}/api/keys`, {
          method: "POST",
          headers: { authorization: `Bearer ${vendorToken}`, "content-type": "application/json" },
          body: JSON.stringify(body),
        });
        const text = await response.text();
        if (response.status !== 201) throw new Error(`POST /api/keys answered ${response.status}: ${text}`);
        const minted = JSON.parse(text) as { id: string; key: string };
        return { id: minted.id, key: minted.key };
      },
      ledger,
      async ledgerWith(keyId, requestIds, timeoutMs = 20_000) {
        const deadline = Date.now() + timeoutMs;
        for (;;) {
          const rows = await ledger(keyId);
          const have = new Set(rows.map((row) => row.requestId));
          if (requestIds.every((id) => have.has(id)) || Date.now() > deadline) return rows;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      },
      close,
    };
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }
}

/** A replica's processes: the process itself and, when it is a cluster primary, its workers (from /proc). */
export function processTree(replica: ProxyProcess): number[] {
  const parent = replica.child.pid;
  if (parent === undefined) return [];
  const pids = [parent];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === parent) pids.push(Number(entry));
    } catch {
      // ended while we looked
    }
  }
  return pids.sort((a, b) => a - b);
}

/** One counter's value in a Prometheus text (summed over its label sets), 0 when absent. */
export function counterValue(metricsText: string, name: string): number {
  let total = 0;
  for (const line of metricsText.split("\n")) {
    if (!line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    if (rest[0] !== " " && rest[0] !== "{") continue;
    total += Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return total;
}

/** The replica's /metrics text, from its metrics port. */
export async function metricsText(replica: Replica): Promise<string> {
  const response = await fetch(`${replica.metricsUrl}/metrics`);
  if (response.status !== 200) throw new Error(`metrics answered ${response.status}`);
  return response.text();
}

/** Whether every replica still answers GET /v1 with 200 (none crashed, none wedged). */
export async function everyReplicaAnswers(replicas: Replica[]): Promise<boolean> {
  const answers = await Promise.all(replicas.map((replica) => fetch(`${replica.url}/v1`).then((response) => response.status, () => 0)));
  return answers.every((status) => status === 200);
}

/** Rate windows are per minute: keeps a burst of up to `needMs` inside one. */
export async function awayFromMinuteBoundary(needMs = 15_000): Promise<void> {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 60_000 - needMs) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoMinute + 300));
}
