// The apps as real processes, started as their containers start them (`node apps/<app>/src/main.ts`,
// configured by the environment) on free ports, against the test services with a throwaway
// database and Redis prefix: simulator, control plane (applies the demo gateway file), billing
// worker and one proxy. Used to read what each app's GET /metrics really exposes.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { createTestDatabase, freePort, resolveTestServices, startAppProcess, type AppProcess } from "@gateway/testing";
import { REPO_ROOT } from "./promtool.ts";

const SIMULATOR_KEY = "sim-observability-secret";

export interface MetricsStack {
  /** Base URLs of each app's GET /metrics. */
  metricsUrls: { proxy: string; controlPlane: string; billingWorker: string };
  proxyUrl: string;
  /** A vendor token of the demo vendor (operator CLI). */
  vendorToken: string;
  stop(): Promise<void>;
}

export async function startMetricsStack(): Promise<MetricsStack> {
  const services = await resolveTestServices();
  const database = await createTestDatabase();
  const prefix = `obs-${randomUUID().slice(0, 8)}`;
  const started: AppProcess[] = [];
  const stop = async () => {
    await Promise.all(started.splice(0).map((app) => app.stop()));
    await deleteKeys(services.redisUrl, `${prefix}:*`);
    await database.drop();
  };
  const start = async (name: string, script: string, env: Record<string, string>, port: number, portVariable?: string) => {
    const app = await startAppProcess({ name, script, env: { SHUTDOWN_DEADLINE_MS: "2000", ...env }, port, portVariable, cwd: REPO_ROOT });
    started.push(app);
    return app;
  };
  try {
    const [simulatorPort, controlPlanePort, workerPort, proxyPort, proxyMetricsPort] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()]);
    const shared = { REDIS_URL: services.redisUrl, REDIS_PREFIX: prefix, INTERNAL_TOKEN: "observability-internal-token" };
    const postgres = { DATABASE_URL: database.url, DB_POOL_SIZE: "2" };
    const simulator = await start("simulator", "apps/simulator/src/main.ts", { SIMULATOR_API_KEY: SIMULATOR_KEY }, simulatorPort!, "SIMULATOR_PORT");
    const controlPlane = await start("control-plane", "apps/control-plane/src/main.ts", {
      ...shared,
      ...postgres,
      GATEWAY_CONFIG_FILE: "infra/demo/gateway.yaml",
      SIMULATOR_URL: simulator.url,
      IDEMPOTENCY_SECRET: "observability-idempotency-secret",
    }, controlPlanePort!);
    const [billingWorker, proxy] = await Promise.all([
      start("billing-worker", "apps/billing-worker/src/main.ts", { ...shared, ...postgres }, workerPort!),
      start("proxy", "apps/proxy/src/main.ts", { ...shared, CONTROL_PLANE_URL: controlPlane.url, SIMULATOR_API_KEY: SIMULATOR_KEY, METRICS_PORT: String(proxyMetricsPort) }, proxyPort!),
    ]);
    const printed = await runScript("apps/control-plane/src/cli.ts", ["vendor-token", "create", "--vendor", "demo"], { ...shared, ...postgres, DB_POOL_SIZE: "1", LOG_LEVEL: "warn" });
    const vendorToken = (JSON.parse(printed) as { token: string }).token;
    return {
      metricsUrls: { proxy: `http://127.0.0.1:${proxyMetricsPort}/metrics`, controlPlane: `${controlPlane.url}/metrics`, billingWorker: `${billingWorker.url}/metrics` },
      proxyUrl: proxy.url,
      vendorToken,
      stop,
    };
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}

function runScript(script: string, args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.once("error", reject);
    child.once("exit", (code) => (code === 0 ? resolve(stdout) : reject(new Error(`${script} ${args.join(" ")} exited ${code}:\n${stdout}${stderr}`))));
  });
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
