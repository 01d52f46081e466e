import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { writeFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Redis } from "ioredis";
import { createLogger } from "@gateway/logger";
import { createTestDatabase, resolveTestServices, type TestDatabase } from "@gateway/testing";
import { loadControlPlaneConfig } from "./config.ts";
import { startControlPlane, type RunningControlPlane } from "./server.ts";

const CLI = fileURLToPath(new URL("./cli.ts", import.meta.url));
const DEMO = fileURLToPath(new URL("../../../infra/demo/gateway.yaml", import.meta.url));
let database: TestDatabase;
let env: Record<string, string>;
let redis: Redis;

beforeAll(async () => {
  const services = await resolveTestServices();
  database = await createTestDatabase();
  env = { DATABASE_URL: database.url, REDIS_URL: services.redisUrl, REDIS_PREFIX: `test-${randomUUID().slice(0, 8)}`, LOG_LEVEL: "silent" };
  redis = new Redis(services.redisUrl);
});
afterAll(async () => {
  const keys = await redis.keys(`${env.REDIS_PREFIX}:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
  await database.drop();
});

function cli(...args: string[]) {
  const result = spawnSync(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, encoding: "utf8", timeout: 30_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr, json: () => JSON.parse(result.stdout) as unknown };
}

describe("operator CLI", () => {
  it("applies the demo file idempotently, creates and revokes vendor tokens, lists vendors, keys and usage, rebuilds Redis", () => {
    const first = cli("apply", DEMO);
    expect(first.status).toBe(0);
    expect(first.json()).toMatchObject({ created: 18, updated: 0, deleted: 0 });
    expect(cli("apply", DEMO).json()).toMatchObject({ created: 0, updated: 0, deleted: 0 });

    const token = cli("vendor-token", "create", "--vendor", "demo", "--scopes", "keys:read").json() as { id: string; token: string; scopes: string[] };
    expect(token.token).toMatch(/^vt_/);
    expect(token.scopes).toEqual(["keys:read"]);
    expect(cli("vendor-token", "revoke", token.id).json()).toMatchObject({ id: token.id });

    expect(cli("vendors").json()).toEqual([expect.objectContaining({ name: "demo", server_options: ["standard"] })]);
    const dir = mkdtempSync(join(tmpdir(), "gw-cli-"));
    const credentials = cli("demo-credentials", "--out", join(dir, "demo.json")).json() as { apiKey: string };
    const keys = cli("keys", "--vendor", "demo").json() as { id: string; prefix: string }[];
    expect(keys).toHaveLength(1);
    expect(credentials.apiKey.startsWith(keys[0]!.prefix)).toBe(true);
    expect(JSON.stringify(keys)).not.toContain(credentials.apiKey);
    expect(cli("usage", keys[0]!.id).json()).toMatchObject({ object: "usage", quota: { limit: "10.000000", used: "0.000000" } });
    expect(cli("rebuild-redis").json()).toMatchObject({ keys: 1 });
  }, 60_000);

  it("refuses a bad file with a message naming the path, and unknown commands", () => {
    const dir = mkdtempSync(join(tmpdir(), "gw-cli-"));
    const bad = join(dir, "bad.yaml");
    writeFileSync(bad, "upstreams:\n  - { name: x, shape: nope, base_url: 'http://a' }\n");
    const result = cli("apply", bad);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/upstreams\[0\]\.shape/);
    expect(cli("frobnicate").status).toBe(2);
  });
});

describe("health", () => {
  let running: RunningControlPlane;
  beforeAll(async () => {
    running = await startControlPlane(loadControlPlaneConfig({ ...env, PORT: "0" }), createLogger({ name: "t", level: "silent" }));
  });
  afterAll(async () => running?.close());

  it("serves /healthz and /readyz with its dependencies", async () => {
    expect((await fetch(`${running.url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${running.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ checks: { database: true, redis: true } });
  });
});
