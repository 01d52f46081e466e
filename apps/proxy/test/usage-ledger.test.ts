import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { parseGatewayFile } from "@gateway/config";
import { costOfUsage, formatUsd, type Usage } from "@gateway/contracts";
import { createLogger } from "@gateway/logger";
import { createTestDatabase, resolveTestServices, type TestDatabase } from "@gateway/testing";
import { startSimulator, type Simulator } from "@gateway/simulator";
import { applyGatewayFile, createVendorToken, loadControlPlaneConfig, startControlPlane, type RunningControlPlane } from "@gateway/control-plane";
import { loadBillingWorkerConfig, startBillingWorker, type RunningBillingWorker } from "@gateway/billing-worker";
import { loadProxyConfig } from "../src/config.ts";
import { startProxy, type RunningProxy } from "../src/server.ts";
import { unitPrices } from "../src/limits/request-bound.ts";
import { SIMULATOR_SECRET, testGatewayYaml } from "./stack.ts";

const silent = createLogger({ name: "test", level: "silent" });
let database: TestDatabase;
let simulator: Simulator;
let controlPlane: RunningControlPlane;
let worker: RunningBillingWorker;
let proxy: RunningProxy;
let vendorToken: string;

beforeAll(async () => {
  const { redisUrl } = await resolveTestServices();
  const prefix = `test-${randomUUID().slice(0, 8)}`;
  database = await createTestDatabase();
  simulator = await startSimulator({ apiKey: SIMULATOR_SECRET });
  const internal = { INTERNAL_TOKEN: `internal-${randomUUID()}` };
  controlPlane = await startControlPlane(loadControlPlaneConfig({ DATABASE_URL: database.url, REDIS_URL: redisUrl, REDIS_PREFIX: prefix, PORT: "0", ...internal }), silent);
  await applyGatewayFile(controlPlane.services.db.prisma, controlPlane.services.records, parseGatewayFile(testGatewayYaml(simulator.url)));
  vendorToken = (await createVendorToken(controlPlane.services.db.prisma, { vendor: "test-vendor", name: "t", scopes: ["keys:create", "keys:read", "keys:revoke", "usage:read"] })).plaintext;
  worker = await startBillingWorker(loadBillingWorkerConfig({ DATABASE_URL: database.url, REDIS_URL: redisUrl, REDIS_PREFIX: prefix, PORT: "0" }), silent);
  proxy = await startProxy(loadProxyConfig({ PORT: "0", METRICS_PORT: "0", REDIS_URL: redisUrl, REDIS_PREFIX: prefix, CONTROL_PLANE_URL: controlPlane.url, ...internal }), silent);
});

afterAll(async () => {
  await proxy?.close();
  await worker?.close();
  const redis = controlPlane.services.redis;
  const keys = await redis.keys(`${controlPlane.services.config.REDIS_PREFIX}:*`);
  if (keys.length) await redis.del(...keys);
  await controlPlane?.close();
  await simulator?.close();
  await database?.drop();
});

async function vendor(method: string, path: string, body?: unknown) {
  const response = await fetch(`${controlPlane.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${vendorToken}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

interface UsageBody {
  quota: { limit: string | null; used: string; remaining: string | null };
  consumption: { requests: number; input_tokens: number; output_tokens: number; cost: string };
  by_model: { model: string; requests: number; input_tokens: number; output_tokens: number; cost: string }[];
}

describe("keys minted through the vendor API, billed into the ledger, shown by /v1/usage", () => {
  it("a minted key works at once; after a streamed and a non-streamed request /v1/usage shows the simulator's tokens and the exact price within 2 s", async () => {
    const minted = await vendor("POST", "/api/keys", { server_option: "standard", name: "ledger", quota: "1.00" });
    expect(minted.status).toBe(201);
    const key = minted.body.key as string;
    const openai = new OpenAI({ baseURL: `${proxy.url}/v1`, apiKey: key, maxRetries: 0 });
    const anthropic = new Anthropic({ baseURL: proxy.url, apiKey: key, maxRetries: 0 });
    simulator.stats.clear();

    await openai.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "#sim:cached=3 one, not streamed" }] });
    await openai.chat.completions.stream({ model: "gpt-test", messages: [{ role: "user", content: "two, streamed" }] }).finalChatCompletion();
    await anthropic.messages.stream({ model: "claude-test", max_tokens: 64, messages: [{ role: "user", content: "three, streamed" }] }).finalMessage();
    const finishedAt = Date.now();

    const served = simulator.stats.requests;
    expect(served.map((r) => r.outcome)).toEqual(["ok", "ok", "ok"]);
    const option = proxy.services.routing.serverOption("standard")!;
    const expected = new Map<string, { requests: number; input: number; output: number; cached: number; cost: bigint }>();
    for (const [index, record] of served.entries()) {
      const model = index < 2 ? "gpt-test" : "claude-test";
      const usage: Usage = { inputTokens: record.usage!.input_tokens, outputTokens: record.usage!.output_tokens, cachedInputTokens: record.usage!.cached_tokens, cacheWriteTokens: 0, cacheWrite1hTokens: 0, reasoningTokens: 0, images: 0, webSearchRequests: 0 };
      const line = expected.get(model) ?? { requests: 0, input: 0, output: 0, cached: 0, cost: 0n };
      expected.set(model, { requests: line.requests + 1, input: line.input + usage.inputTokens, output: line.output + usage.outputTokens, cached: line.cached + usage.cachedInputTokens, cost: line.cost + costOfUsage(usage, unitPrices(option, model)!) });
    }
    expect(served[0]!.usage!.cached_tokens).toBe(3);

    const usage = async () => {
      const response = await fetch(`${proxy.url}/v1/usage`, { headers: { authorization: `Bearer ${key}` } });
      return (await response.json()) as UsageBody;
    };
    await expect.poll(async () => (await usage()).consumption.requests, { timeout: 2_000, interval: 50 }).toBe(3);
    expect(Date.now() - finishedAt).toBeLessThan(2_000);
    const body = await usage();
    const totalCost = [...expected.values()].reduce((sum, line) => sum + line.cost, 0n);
    expect(body.by_model).toEqual(
      [...expected.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([model, line]) => ({
        model, requests: line.requests, input_tokens: line.input, output_tokens: line.output, images: 0, cost: formatUsd(line.cost),
        cached_input_tokens: line.cached, cache_write_tokens: 0, cache_write_1h_tokens: 0, reasoning_tokens: 0, web_search_requests: 0,
      })),
    );
    expect(body.consumption.cost).toBe(formatUsd(totalCost));
    expect(body.quota.limit).toBe("1.000000");
    expect(body.quota.used).toBe(formatUsd(totalCost));

    const ledger = await controlPlane.services.db.prisma.usageRecord.findMany({ where: { apiKeyId: minted.body.id as string } });
    expect(ledger).toHaveLength(3);
    expect(ledger.reduce((sum, row) => sum + row.costNano, 0n)).toBe(totalCost);
  });

  it("a key revoked through the vendor API is refused by the running proxy within a second", async () => {
    const minted = await vendor("POST", "/api/keys", { server_option: "standard", name: "to revoke" });
    const key = minted.body.key as string;
    const models = () => fetch(`${proxy.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
    expect((await models()).status).toBe(200);
    const revoked = await vendor("DELETE", `/api/keys/${minted.body.id as string}`);
    expect(revoked.body.status).toBe("revoked");
    const at = Date.now();
    await expect.poll(async () => (await models()).status, { timeout: 1_000, interval: 25 }).toBe(401);
    expect(Date.now() - at).toBeLessThan(1_000);
  });

  it("the same Idempotency-Key returns the same key", async () => {
    const post = () =>
      fetch(`${controlPlane.url}/api/keys`, {
        method: "POST",
        headers: { authorization: `Bearer ${vendorToken}`, "content-type": "application/json", "idempotency-key": "abc-123" },
        body: JSON.stringify({ server_option: "standard", name: "idem" }),
      }).then(async (response) => ({ status: response.status, body: (await response.json()) as { key: string; id: string } }));
    const first = await post();
    const second = await post();
    expect(first.status).toBe(201);
    expect(second).toEqual(first);
    expect((await fetch(`${proxy.url}/v1/models`, { headers: { authorization: `Bearer ${first.body.key}` } })).status).toBe(200);
  });
});
