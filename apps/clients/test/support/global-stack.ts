// One gateway for the whole client suite (vitest globalSetup): PostgreSQL (a throwaway database),
// Redis (a random key prefix), the simulator in strict mode, the control plane and the billing
// worker in this process, the proxy as a real process, configured by the demo gateway file
// (infra/demo/gateway.yaml: the model names today's clients send by default). Test files get its
// addresses through `inject("clients")`; a small helper server here answers what they cannot reach
// themselves: the simulator's records of a test's requests and the ledger rows of a key.
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import type { TestProject } from "vitest/node";
import { parseGatewayFile } from "@gateway/config";
import { createLogger } from "@gateway/logger";
import { createTestDatabase, freePort, resolveTestServices, startAppProcess, type AppProcess, type TestDatabase } from "@gateway/testing";
import { startSimulator, type Simulator } from "@gateway/simulator";
import { applyGatewayFile, createVendorToken, loadControlPlaneConfig, startControlPlane, type RunningControlPlane } from "@gateway/control-plane";
import { loadBillingWorkerConfig, startBillingWorker, type RunningBillingWorker } from "@gateway/billing-worker";

const PROXY_MAIN = fileURLToPath(new URL("../../../proxy/src/main.ts", import.meta.url));
export const DEMO_GATEWAY_FILE = fileURLToPath(new URL("../../../../infra/demo/gateway.yaml", import.meta.url));
const SIMULATOR_SECRET = "clients-sim-secret-0123456789";

export interface ClientsContext {
  /** The proxy: /v1 for clients, /api for the vendor API. */
  proxyUrl: string;
  /** A vendor token (demo vendor) that mints keys. */
  vendorToken: string;
  /** The helper server of this file: GET /upstream?marker=, GET /ledger?key_id=. */
  helperUrl: string;
}

declare module "vitest" {
  export interface ProvidedContext {
    clients: ClientsContext;
  }
}

export interface StartedStack {
  context: ClientsContext;
  simulator: Simulator;
  proxy: AppProcess;
  close(): Promise<void>;
}

/** Starts the stack (also used by scripts/record-fixtures.ts). */
export async function startClientStack(): Promise<StartedStack> {
  const silent = createLogger({ name: "clients", level: "silent" });
  const { redisUrl } = await resolveTestServices();
  const prefix = `clients-${randomUUID().slice(0, 8)}`;
  const internal = `internal-${randomUUID()}`;
  const closers: (() => Promise<unknown>)[] = [];
  const close = async () => {
    for (const closer of closers.reverse()) await closer().catch(() => undefined);
  };
  try {
    const database: TestDatabase = await createTestDatabase();
    closers.push(() => database.drop());
    // Strict: the simulator refuses what the real provider would, and calls a tool only when asked.
    const simulator = await startSimulator({ apiKey: SIMULATOR_SECRET, strict: true, maxRecords: 3000 });
    closers.push(() => simulator.close());
    const env = { DATABASE_URL: database.url, REDIS_URL: redisUrl, REDIS_PREFIX: prefix, PORT: "0", DB_POOL_SIZE: "4", INTERNAL_TOKEN: internal };
    const controlPlane: RunningControlPlane = await startControlPlane(loadControlPlaneConfig(env), silent);
    closers.push(async () => {
      const keys = await controlPlane.services.redis.keys(`${prefix}:*`);
      if (keys.length > 0) await controlPlane.services.redis.del(...keys);
      await controlPlane.close();
    });
    const prisma = controlPlane.services.db.prisma;
    await applyGatewayFile(prisma, controlPlane.services.records, parseGatewayFile(readFileSync(DEMO_GATEWAY_FILE, "utf8"), DEMO_GATEWAY_FILE, { SIMULATOR_URL: simulator.url }));
    const worker: RunningBillingWorker = await startBillingWorker(loadBillingWorkerConfig(env), silent);
    closers.push(() => worker.close());
    const proxy = await startAppProcess({
      name: "proxy",
      script: PROXY_MAIN,
      port: await freePort(),
      env: { REDIS_URL: redisUrl, REDIS_PREFIX: prefix, CONTROL_PLANE_URL: controlPlane.url, INTERNAL_TOKEN: internal, SIMULATOR_API_KEY: SIMULATOR_SECRET, AUTH_FREE_FAILURES: "100000" },
    });
    closers.push(() => proxy.stop());
    const vendorToken = (await createVendorToken(prisma, { vendor: "demo", name: "client suite", scopes: ["keys:create", "keys:read", "keys:revoke", "usage:read"] })).plaintext;

    const helper: Server = createServer((req, res) => {
      const url = new URL(req.url ?? "/", "http://helper");
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(body, (_key, value: unknown) => (typeof value === "bigint" ? Number(value) : value)));
      };
      if (url.pathname === "/upstream") {
        const marker = url.searchParams.get("marker") ?? "";
        if (marker.length < 8) return send(400, { error: "marker too short" });
        const records = simulator.stats.requests.filter((record) => !record.path.startsWith("/v1/models") && JSON.stringify(record.body).includes(marker));
        return send(200, records);
      }
      if (url.pathname === "/ledger") {
        const keyId = url.searchParams.get("key_id") ?? "";
        prisma.usageRecord.findMany({ where: { apiKeyId: keyId }, orderBy: { startedAt: "asc" } }).then(
          (rows) => send(200, rows),
          (error: unknown) => send(500, { error: String(error) }),
        );
        return;
      }
      send(404, { error: "unknown" });
    });
    await new Promise<void>((resolve) => helper.listen(0, "127.0.0.1", resolve));
    closers.push(() => new Promise((resolve) => helper.close(resolve)));
    const helperUrl = `http://127.0.0.1:${(helper.address() as AddressInfo).port}`;
    return { context: { proxyUrl: proxy.url, vendorToken, helperUrl }, simulator, proxy, close };
  } catch (error) {
    await close();
    throw error;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const stack = await startClientStack();
  project.provide("clients", stack.context);
  return () => stack.close();
}
