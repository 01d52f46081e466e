import { randomUUID } from "node:crypto";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { parseGatewayFile } from "@gateway/config";
import { createLogger } from "@gateway/logger";
import { createTestDatabase, resolveTestServices, type TestDatabase } from "@gateway/testing";
import { startSimulator, type Simulator } from "@gateway/simulator";
import { applyGatewayFile, createVendorToken, loadControlPlaneConfig, startControlPlane, type RunningControlPlane } from "@gateway/control-plane";
import { loadProxyConfig } from "../src/config.ts";
import { startProxy, type RunningProxy } from "../src/server.ts";
import { SIMULATOR_SECRET, testGatewayYaml } from "./stack.ts";

const lines: string[] = [];
const capture = new Writable({ write(chunk, _encoding, done) { lines.push(String(chunk)); done(); } });
const logger = (name: string) => createLogger({ name, level: "trace", destination: capture });

let database: TestDatabase;
let simulator: Simulator;
let controlPlane: RunningControlPlane;
let proxy: RunningProxy;
const internalToken = `internal-${randomUUID()}`;

beforeAll(async () => {
  const { redisUrl } = await resolveTestServices();
  const prefix = `test-${randomUUID().slice(0, 8)}`;
  database = await createTestDatabase();
  simulator = await startSimulator({ apiKey: SIMULATOR_SECRET });
  controlPlane = await startControlPlane(loadControlPlaneConfig({ DATABASE_URL: database.url, REDIS_URL: redisUrl, REDIS_PREFIX: prefix, PORT: "0", INTERNAL_TOKEN: internalToken, LOG_LEVEL: "trace" }), logger("control-plane"));
  await applyGatewayFile(controlPlane.services.db.prisma, controlPlane.services.records, parseGatewayFile(testGatewayYaml(simulator.url)));
  proxy = await startProxy(loadProxyConfig({ PORT: "0", METRICS_PORT: "0", REDIS_URL: redisUrl, REDIS_PREFIX: prefix, CONTROL_PLANE_URL: controlPlane.url, INTERNAL_TOKEN: internalToken, LOG_LEVEL: "trace" }), logger("proxy"));
});

afterAll(async () => {
  await proxy?.close();
  const redis = controlPlane.services.redis;
  const keys = await redis.keys(`${controlPlane.services.config.REDIS_PREFIX}:*`);
  if (keys.length) await redis.del(...keys);
  await controlPlane?.close();
  await simulator?.close();
  await database?.drop();
});

describe("logs under traffic", () => {
  it("never contain a key, a vendor token, the internal token or an upstream secret", async () => {
    const vendorToken = (await createVendorToken(controlPlane.services.db.prisma, { vendor: "test-vendor", name: "t", scopes: ["keys:create", "keys:revoke"] })).plaintext;
    const api = (method: string, path: string, token: string, body?: unknown) =>
      fetch(`${controlPlane.url}${path}`, { method, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
    const minted = (await (await api("POST", "/api/keys", vendorToken, { server_option: "standard", name: "logs" })).json()) as { id: string; key: string };
    const key = minted.key;
    const openai = new OpenAI({ baseURL: `${proxy.url}/v1`, apiKey: key, maxRetries: 0 });
    const anthropic = new Anthropic({ baseURL: proxy.url, apiKey: key, maxRetries: 0 });

    // Success, streaming, failover with warnings, a mid-stream cut, every upstream failing, bad keys.
    await openai.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "hi" }] });
    await anthropic.messages.stream({ model: "claude-test", max_tokens: 16, messages: [{ role: "user", content: "hi" }] }).finalMessage();
    simulator.faults.push({ match: { model: "gpt-upstream-a" }, times: 1, behaviour: { failStatus: 503 } });
    await openai.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "hi" }] });
    await openai.chat.completions.create({ model: "gpt-test", stream: true, messages: [{ role: "user", content: "#sim:cut_after=2 cut" }] }).then(async (stream) => {
      for await (const _chunk of stream) { /* drain */ }
    }).catch(() => undefined);
    await openai.chat.completions.create({ model: "dead-test", messages: [{ role: "user", content: "hi" }] }).catch(() => undefined);
    await fetch(`${proxy.url}/v1/usage`, { headers: { authorization: `Bearer ${key}` } });
    await fetch(`${proxy.url}/v1/models`, { headers: { authorization: `Bearer ${key}x` } });
    await fetch(`${proxy.url}/v1/models`, { headers: { "x-api-key": "sk-guessing0000000000000000000000" } });
    await api("GET", "/api/keys", "vt_guessing000000000000000000");
    await api("GET", "/api/keys", key);
    await api("DELETE", `/api/keys/${minted.id}`, vendorToken);
    await new Promise((resolve) => setTimeout(resolve, 100));

    const output = lines.join("");
    expect(lines.length).toBeGreaterThan(5);
    for (const secret of [key, key.slice(3), vendorToken, vendorToken.slice(3), internalToken, SIMULATOR_SECRET, "sk-guessing", "vt_guessing"]) {
      expect(output).not.toContain(secret);
    }
    expect(output).toMatch(/upstream attempt failed/);
  });
});
