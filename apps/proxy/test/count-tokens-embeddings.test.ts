import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { createOpenAI } from "@ai-sdk/openai";
import { embed, embedMany } from "ai";
import { countTokens as o200kCount } from "gpt-tokenizer/encoding/o200k_base";
import { computeChatCompletionTokenCount } from "gpt-tokenizer/functionCalling";
import { parseGatewayFile } from "@gateway/config";
import { costOfUsage, EMPTY_USAGE, formatUsd } from "@gateway/contracts";
import { createLogger } from "@gateway/logger";
import { createTestDatabase, resolveTestServices, type TestDatabase } from "@gateway/testing";
import { startSimulator, type Simulator } from "@gateway/simulator";
import { applyGatewayFile, createVendorToken, loadControlPlaneConfig, mintKey, startControlPlane, type RunningControlPlane } from "@gateway/control-plane";
import { loadBillingWorkerConfig, startBillingWorker, type RunningBillingWorker } from "@gateway/billing-worker";
import { loadProxyConfig } from "../src/config.ts";
import { startProxy, type RunningProxy } from "../src/server.ts";
import { unitPrices } from "../src/limits/request-bound.ts";
import { SIMULATOR_SECRET, testGatewayYaml } from "./stack.ts";

/**
 * Contract section 11: `POST /v1/messages/count_tokens` (forwarded to Anthropic-shape upstreams,
 * counted locally with gpt-tokenizer for models on OpenAI-shape ones, never billed, one request of
 * the key's rate) and `POST /v1/embeddings` (OpenAI-shape targets only, billed at the input price),
 * through the official SDKs and the Vercel AI SDK, against the real proxy, control plane, billing
 * worker and simulator.
 */
const silent = createLogger({ name: "test", level: "silent" });
let database: TestDatabase;
let simulator: Simulator;
let controlPlane: RunningControlPlane;
let worker: RunningBillingWorker;
let proxy: RunningProxy;

beforeAll(async () => {
  const { redisUrl } = await resolveTestServices();
  const prefix = `test-${randomUUID().slice(0, 8)}`;
  database = await createTestDatabase();
  simulator = await startSimulator({ apiKey: SIMULATOR_SECRET });
  const internal = { INTERNAL_TOKEN: `internal-${randomUUID()}` };
  controlPlane = await startControlPlane(loadControlPlaneConfig({ DATABASE_URL: database.url, REDIS_URL: redisUrl, REDIS_PREFIX: prefix, PORT: "0", ...internal }), silent);
  await applyGatewayFile(controlPlane.services.db.prisma, controlPlane.services.records, parseGatewayFile(testGatewayYaml(simulator.url)));
  worker = await startBillingWorker(loadBillingWorkerConfig({ DATABASE_URL: database.url, REDIS_URL: redisUrl, REDIS_PREFIX: prefix, PORT: "0" }), silent);
  proxy = await startProxy(loadProxyConfig({ PORT: "0", METRICS_PORT: "0", REDIS_URL: redisUrl, REDIS_PREFIX: prefix, CONTROL_PLANE_URL: controlPlane.url, CIRCUIT_FAILURE_THRESHOLD: "1000", ...internal }), silent);
}, 60_000);

afterAll(async () => {
  await proxy?.close();
  await worker?.close();
  const redis = controlPlane?.services.redis;
  const keys = redis ? await redis.keys(`${controlPlane.services.config.REDIS_PREFIX}:*`) : [];
  if (keys.length) await redis!.del(...keys);
  await controlPlane?.close();
  await simulator?.close();
  await database?.drop();
});

beforeEach(() => {
  simulator.stats.clear();
  simulator.faults.clear();
});

async function newKey(options: { serverOption?: string; quotaNano?: bigint | null; rpm?: number | null } = {}): Promise<{ id: string; key: string }> {
  const { prisma } = controlPlane.services.db;
  const vendor = await prisma.vendor.findUniqueOrThrow({ where: { name: "test-vendor" } });
  const minted = await mintKey(prisma, controlPlane.services.records, {
    vendorId: vendor.id,
    serverOption: options.serverOption ?? "standard",
    name: "count-embed",
    quotaNano: options.quotaNano ?? null,
    expiresAt: null,
    rpm: options.rpm ?? null,
    tpm: null,
    metadata: {},
  });
  return { id: minted.row.id, key: minted.plaintext };
}

const anthropicFor = (key: string) => new Anthropic({ baseURL: proxy.url, apiKey: key, maxRetries: 0 });
const openaiFor = (key: string) => new OpenAI({ baseURL: `${proxy.url}/v1`, apiKey: key, maxRetries: 0 });
/** The simulator itself, as the upstream (its own model names), to compare answers with. */
const upstreamAnthropic = () => new Anthropic({ baseURL: simulator.url, apiKey: SIMULATOR_SECRET, maxRetries: 0 });
const upstreamOpenai = () => new OpenAI({ baseURL: `${simulator.url}/v1`, apiKey: SIMULATOR_SECRET, maxRetries: 0 });

async function post(path: string, key: string | null, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${proxy.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: JSON.parse(text) as Record<string, any> };
}

interface UsageBody {
  quota: { limit: string | null; used: string; remaining: string | null };
  consumption: { requests: number; input_tokens: number; output_tokens: number; cost: string };
  by_model: { model: string; requests: number; input_tokens: number; output_tokens: number; cost: string }[];
}

async function usageOf(key: string): Promise<UsageBody> {
  const response = await fetch(`${proxy.url}/v1/usage`, { headers: { authorization: `Bearer ${key}` } });
  expect(response.status).toBe(200);
  return (await response.json()) as UsageBody;
}

const WEATHER_TOOL = {
  name: "get_weather",
  description: "The weather in a city",
  input_schema: { type: "object" as const, properties: { city: { type: "string", description: "The city" }, days: { type: "integer" } }, required: ["city"] },
};

/** OpenAI's prompt count, by hand: role + text + 3 per message, 3 priming the answer (o200k_base). */
function handCount(messages: { role: string; content: string }[]): number {
  return messages.reduce((sum, message) => sum + o200kCount(message.role) + o200kCount(message.content) + 3, 0) + 3;
}

describe("POST /v1/messages/count_tokens", () => {
  it("an Anthropic-shape model: forwarded with the upstream's model name and headers; the number is the upstream's", async () => {
    const { key } = await newKey();
    const params = { model: "claude-test", system: "You are terse.", messages: [{ role: "user" as const, content: "How many tokens is this sentence?" }], tools: [WEATHER_TOOL] };
    const counted = await anthropicFor(key).messages.countTokens(params);
    const direct = await upstreamAnthropic().messages.countTokens({ ...params, model: "claude-upstream-a" });
    expect(counted).toEqual(direct);
    expect(counted.input_tokens).toBeGreaterThan(0);
    const forwarded = simulator.stats.requests[0]!;
    expect(forwarded).toMatchObject({ path: "/v1/messages/count_tokens", provider: "anthropic", model: "claude-upstream-a", outcome: "ok" });
    expect(forwarded.body).toEqual({ ...params, model: "claude-upstream-a" });
    expect(forwarded.headers["anthropic-version"]).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(forwarded.headers["x-api-key"]).toBeDefined();

    // The beta client: `?beta=true` and its betas, forwarded as given.
    simulator.stats.clear();
    const beta = await anthropicFor(key).beta.messages.countTokens({ ...params, betas: ["context-management-2025-06-27"] });
    expect(beta).toEqual(direct);
    // The SDK adds its token-counting beta to the ones asked for.
    expect(simulator.stats.last!.headers["anthropic-beta"]).toBe("context-management-2025-06-27,token-counting-2024-11-01");
    // Older clients: x-api-key and the old version header.
    const old = await post("/v1/messages/count_tokens?beta=true", null, params, { "x-api-key": key, "anthropic-version": "2023-06-01" });
    expect(old.status).toBe(200);
    expect(old.body).toEqual(direct);
    expect(old.headers.get("x-gateway-dropped-params")).toBeNull();
    // The upstream's drop_betas (OAuth betas by default) are not forwarded.
    const oauth = await post("/v1/messages/count_tokens", key, params, { "anthropic-beta": "oauth-2025-04-20,context-management-2025-06-27" });
    expect(oauth.status).toBe(200);
    expect(simulator.stats.last!.headers["anthropic-beta"]).toBe("context-management-2025-06-27");
  });

  it("an Anthropic-shape model: fails over to the next target before the first byte; an upstream 4xx reaches the client in the envelope", async () => {
    const { key } = await newKey();
    const params = { model: "claude-test", messages: [{ role: "user" as const, content: "count me" }] };
    simulator.faults.push({ match: { path: "/v1/messages/count_tokens", model: "claude-upstream-a" }, times: 1, behaviour: { failStatus: 529 } });
    expect(await anthropicFor(key).messages.countTokens(params)).toEqual(await upstreamAnthropic().messages.countTokens({ ...params, model: "x" }));
    expect(simulator.stats.requests.slice(0, 2).map((record) => [record.model, record.status])).toEqual([["claude-upstream-a", 529], ["claude-upstream-b", 200]]);

    simulator.faults.push({ match: { path: "/v1/messages/count_tokens" }, times: 1, behaviour: { failStatus: 400 } });
    const error = await anthropicFor(key).messages.countTokens(params).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    const apiError = error as InstanceType<typeof Anthropic.BadRequestError>;
    expect(apiError.type).toBe("invalid_request_error");
    expect(JSON.stringify(apiError.error)).toContain("Simulated failure with status 400");
  });

  it("an OpenAI-shape model: counted here on the translated Chat Completions request with o200k_base; no upstream call", async () => {
    const { key } = await newKey({ serverOption: "cross-shape" });
    const client = anthropicFor(key);
    const plain = await client.messages.countTokens({ model: "claude-on-openai", system: "You are terse.", messages: [{ role: "user", content: "How many tokens is this sentence?" }] });
    expect(plain.input_tokens).toBe(handCount([{ role: "system", content: "You are terse." }, { role: "user", content: "How many tokens is this sentence?" }]));
    expect(plain.input_tokens).toBeGreaterThan(10);

    // A conversation with a tool call, its result, and the tool's definition (OpenAI's prompt form of functions).
    const messages = [
      { role: "user" as const, content: "Weather in Paris?" },
      { role: "assistant" as const, content: [{ type: "tool_use" as const, id: "toolu_1", name: "get_weather", input: { city: "Paris" } }] },
      { role: "user" as const, content: [{ type: "tool_result" as const, tool_use_id: "toolu_1", content: "Sunny, 21 C" }] },
    ];
    const withTools = await client.beta.messages.countTokens({ model: "claude-on-openai", system: "Be brief.", messages, tools: [WEATHER_TOOL] });
    const expected = computeChatCompletionTokenCount(
      {
        messages: [
          { role: "system", content: "Be brief." },
          { role: "user", content: "Weather in Paris?" },
          { role: "assistant", content: "", function_call: { name: "get_weather", arguments: '{"city":"Paris"}' } },
          { role: "tool", content: "Sunny, 21 C" },
        ],
        functions: [{ name: "get_weather", description: "The weather in a city", parameters: { type: "object", properties: { city: { type: "string", description: "The city" }, days: { type: "integer" } }, required: ["city"] } }],
      },
      (text) => (text ? o200kCount(text) : 0),
    );
    expect(withTools.input_tokens).toBe(expected);
    expect(withTools.input_tokens).toBeGreaterThan(plain.input_tokens);
    // Betas are never sent cross-shape: dropped, and listed as such.
    const beta = await post("/v1/messages/count_tokens?beta=true", key, { model: "claude-on-openai", messages: [{ role: "user", content: "hi" }] }, { "anthropic-beta": "token-counting-2024-11-01" });
    expect(beta.body).toEqual({ input_tokens: handCount([{ role: "user", content: "hi" }]) });
    expect(beta.headers.get("x-gateway-dropped-params")).toBe("anthropic-beta");
    expect(simulator.stats.requests).toEqual([]);

    // What the other shape cannot take is the same 400 /v1/messages gives.
    const thinking = { model: "claude-on-openai", messages: [{ role: "user", content: "hi" }, { role: "assistant", content: [{ type: "thinking", thinking: "hm", signature: "sig" }] }, { role: "user", content: "again" }] };
    const refused = await post("/v1/messages/count_tokens", key, thinking);
    const onMessages = await post("/v1/messages", key, { ...thinking, max_tokens: 16 });
    expect(refused.status).toBe(onMessages.status);
    expect(refused.body.error).toEqual(onMessages.body.error);
  });

  it("a model on both shapes: forwarded to its Anthropic-shape target, counted here once that target has failed", async () => {
    const { key } = await newKey({ serverOption: "cross-shape" });
    const params = { model: "mixed-test", messages: [{ role: "user" as const, content: "Hello there, how are you?" }] };
    const forwarded = await anthropicFor(key).messages.countTokens(params);
    expect(forwarded).toEqual(await upstreamAnthropic().messages.countTokens({ ...params, model: "mixed-anthropic" }));
    simulator.stats.clear();
    simulator.faults.push({ match: { path: "/v1/messages/count_tokens" }, times: 10, behaviour: { failStatus: 503 } });
    const local = await anthropicFor(key).messages.countTokens(params);
    expect(local.input_tokens).toBe(handCount([{ role: "user", content: "Hello there, how are you?" }]));
    expect(simulator.stats.requests.length).toBeGreaterThan(0);
    expect(simulator.stats.requests.every((record) => record.status === 503)).toBe(true);
  });

  it("is not billed and reserves no quota, but a key whose quota is used up is refused it (429)", async () => {
    const { key, id } = await newKey({ quotaNano: 1_000_000n });
    const client = anthropicFor(key);
    const params = { model: "claude-test", messages: [{ role: "user" as const, content: "count, then answer" }] };
    for (let index = 0; index < 3; index += 1) expect((await client.messages.countTokens(params)).input_tokens).toBeGreaterThan(0);
    const message = await client.messages.create({ ...params, max_tokens: 8 });
    // Events are queued in order: once the message's ledger row is in, a billed count would be too.
    const rows = () => controlPlane.services.db.prisma.usageRecord.findMany({ where: { apiKeyId: id } });
    await expect.poll(async () => (await rows()).some((row) => row.endpoint === "messages"), { timeout: 3_000, interval: 50 }).toBe(true);
    expect((await rows()).map((row) => row.endpoint)).toEqual(["messages"]);
    const usage = await usageOf(key);
    expect(usage.consumption.requests).toBe(1);
    expect(usage.by_model).toEqual([expect.objectContaining({ model: "claude-test", requests: 1, input_tokens: message.usage.input_tokens, output_tokens: message.usage.output_tokens })]);

    expect(usage.quota.used).toBe(usage.consumption.cost);

    // Its vendor lowers the quota below what the key has spent: the key's quota is used up, and a
    // count is refused like a message (contract section 14), before any upstream call.
    const vendorToken = (await createVendorToken(controlPlane.services.db.prisma, { vendor: "test-vendor", name: "quota", scopes: ["keys:update"] })).plaintext;
    const patched = await fetch(`${controlPlane.url}/api/keys/${id}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${vendorToken}`, "content-type": "application/json" },
      body: JSON.stringify({ quota: "0.000001" }),
    });
    expect(patched.status).toBe(200);
    await expect.poll(async () => (await post("/v1/messages/count_tokens", key, params)).status, { timeout: 3_000, interval: 50 }).toBe(429);
    simulator.stats.clear();
    const refused = await post("/v1/messages/count_tokens", key, params);
    expect(refused.body.error).toMatchObject({ type: "insufficient_quota", code: "insufficient_quota" });
    expect(simulator.stats.requests).toEqual([]);
  });

  it("counts locally only bodies up to TOKEN_COUNT_MAX_BYTES: a larger one is a 413", async () => {
    const { key } = await newKey({ serverOption: "cross-shape" });
    const limit = proxy.services.config.TOKEN_COUNT_MAX_BYTES;
    const big = await post("/v1/messages/count_tokens", key, { model: "claude-on-openai", messages: [{ role: "user", content: "word ".repeat(limit / 5) }] });
    expect(big.status).toBe(413);
    expect(big.body.error).toMatchObject({ type: "request_too_large", code: "request_too_large" });
    expect(simulator.stats.requests).toEqual([]);
  });

  it("never holds the process while it counts: a neighbour's requests are answered while a huge tool name is counted", async () => {
    const { key } = await newKey({ serverOption: "cross-shape" });
    // The attack's shape: one tool name of 600 kB of letters in no order (no space, nothing the
    // tokenizer merges quickly): seconds of tokenizer work.
    const letters = "abcdefghijklmnopqrstuvwxyz";
    let seed = 42;
    const letter = () => letters[(seed = (seed * 1103515245 + 12345) % 2147483648) % 26];
    const name = Array.from({ length: 600_000 }, letter).join("");
    const body = {
      model: "claude-on-openai",
      messages: [
        { role: "user", content: "hi" },
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name, input: {} }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "ok" }] },
      ],
    };
    let counted = false;
    const count = post("/v1/messages/count_tokens", key, body).finally(() => (counted = true));
    let answeredMeanwhile = 0;
    while (!counted) {
      const neighbour = await fetch(`${proxy.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
      expect(neighbour.status).toBe(200);
      await neighbour.arrayBuffer();
      if (!counted) answeredMeanwhile += 1;
    }
    const result = await count;
    expect(result.status).toBe(200);
    expect(result.body.input_tokens).toBeGreaterThan(100_000);
    expect(name.length).toBeLessThan(proxy.services.config.TOKEN_COUNT_MAX_BYTES);
    // Counting in one go would leave only the few answered while the body was still arriving.
    expect(answeredMeanwhile).toBeGreaterThan(100);
    // About 4 s on a quiet machine; a CI machine running other packages' tests beside it is slower.
  }, 60_000);

  it("counts toward the key's requests per minute: a key with rpm 2 gets 429 on the third call", async () => {
    const { key } = await newKey({ rpm: 2 });
    const params = { model: "claude-test", messages: [{ role: "user", content: "rate me" }] };
    const first = await post("/v1/messages/count_tokens", key, params);
    expect(first.status).toBe(200);
    expect(first.headers.get("x-ratelimit-limit-requests")).toBe("2");
    expect(first.headers.get("x-ratelimit-remaining-requests")).toBe("1");
    expect((await post("/v1/messages/count_tokens", key, params)).status).toBe(200);
    const third = await post("/v1/messages/count_tokens", key, params);
    expect(third.status).toBe(429);
    expect(third.body.error).toMatchObject({ type: "rate_limit_error", code: "rate_limit_exceeded" });
    expect(Number(third.headers.get("retry-after"))).toBeGreaterThan(0);
    // And the counts took the slots a message would have used.
    expect((await post("/v1/messages", key, { ...params, max_tokens: 8 })).status).toBe(429);
  });

  it("a body /v1/messages refuses (bar max_tokens) is the same 400 here, before any upstream call", async () => {
    const { key } = await newKey({ serverOption: "cross-shape" });
    const standard = await newKey();
    // What the gateway must read (contract section 15); the rest is the provider's (the next test).
    const bodies: [string, Record<string, unknown>][] = [
      ["no messages", { model: "claude-test" }],
      ["messages not an array", { model: "claude-test", messages: "hi" }],
      ["no model", { messages: [{ role: "user", content: "x" }] }],
      ["an unknown model", { model: "no-such-model", messages: [{ role: "user", content: "x" }] }],
      ["a model the key may not call", { model: "hidden-test", messages: [{ role: "user", content: "x" }] }],
    ];
    for (const [name, body] of bodies) {
      const counted = await post("/v1/messages/count_tokens", standard.key, body);
      const messaged = await post("/v1/messages", standard.key, { max_tokens: 16, ...body });
      expect(counted.status, name).toBeGreaterThanOrEqual(400);
      expect([counted.status, counted.body.error], name).toEqual([messaged.status, messaged.body.error]);
    }
    const badVersion = await post("/v1/messages/count_tokens", standard.key, { model: "claude-test", messages: [{ role: "user", content: "x" }] }, { "anthropic-version": "latest" });
    expect(badVersion.status).toBe(400);
    expect(badVersion.body.error).toMatchObject({ code: "invalid_header", param: "anthropic-version" });
    expect((await post("/v1/messages/count_tokens", null, { model: "claude-test", messages: [] })).status).toBe(401);
    // The same checks whichever way the model is served.
    const crossShape = await post("/v1/messages/count_tokens", key, { model: "claude-on-openai", messages: "hi" });
    expect(crossShape.body.error).toMatchObject({ code: "invalid_body", param: "messages" });
    expect(simulator.stats.requests).toEqual([]);
  });

  it("what the gateway need not read is the provider's to judge, here as on /v1/messages (contract section 15)", async () => {
    const standard = await newKey();
    const bodies: [string, Record<string, unknown>][] = [
      ["empty messages", { model: "claude-test", messages: [] }],
      // claude-test takes no mid-conversation system message: folded into a user turn on both endpoints.
      ["a system role in messages", { model: "claude-test", messages: [{ role: "user", content: "hi" }, { role: "system", content: "x" }] }],
      ["content a number", { model: "claude-test", messages: [{ role: "user", content: 3 }] }],
      ["a block without type", { model: "claude-test", messages: [{ role: "user", content: [{ text: "x" }] }] }],
      ["system a number", { model: "claude-test", system: 5, messages: [{ role: "user", content: "x" }] }],
    ];
    for (const [name, body] of bodies) {
      simulator.stats.clear();
      const counted = await post("/v1/messages/count_tokens", standard.key, body);
      const messaged = await post("/v1/messages", standard.key, { max_tokens: 16, ...body });
      const [count, message] = simulator.stats.requests;
      expect([count?.path, message?.path], name).toEqual(["/v1/messages/count_tokens", "/v1/messages"]);
      expect((count!.body as { messages: unknown }).messages, name).toEqual((message!.body as { messages: unknown }).messages);
      expect([counted.status, messaged.status], name).toEqual([count!.status, message!.status]);
    }
    // The folded system message is one the upstream takes.
    simulator.stats.clear();
    const folded = await post("/v1/messages/count_tokens", standard.key, { model: "claude-test", messages: [{ role: "user", content: "hi" }, { role: "system", content: "x" }] });
    expect(folded.status).toBe(200);
    expect((simulator.stats.requests[0]!.body as { messages: unknown }).messages).toEqual([
      { role: "user", content: "hi" },
      { role: "user", content: [{ type: "text", text: "<system-reminder>\nx\n</system-reminder>" }] },
    ]);
  });
});

describe("POST /v1/embeddings", () => {
  it("the openai client: string and array input, float and base64, the upstream's vectors as they came", async () => {
    const { key } = await newKey();
    const client = openaiFor(key);
    const upstream = upstreamOpenai();

    const single = await client.embeddings.create({ model: "gpt-test", input: "The food was delicious", encoding_format: "float" });
    expect(single.object).toBe("list");
    expect(single.data).toHaveLength(1);
    expect(single.data[0]!.embedding).toHaveLength(1536);
    expect(single).toEqual(await upstream.embeddings.create({ model: "gpt-upstream-a", input: "The food was delicious", encoding_format: "float" }));
    expect(simulator.stats.requests[0]).toMatchObject({ path: "/v1/embeddings", provider: "openai", model: "gpt-upstream-a", outcome: "ok" });

    // The SDK asks for base64 by default and decodes it; the gateway passes it as it came.
    simulator.stats.clear();
    const many = await client.embeddings.create({ model: "gpt-test", input: ["first text", "second text", "third"] });
    expect((simulator.stats.last!.body as Record<string, unknown>).encoding_format).toBe("base64");
    expect(many.data.map((item) => [item.index, item.embedding.length])).toEqual([[0, 1536], [1, 1536], [2, 1536]]);
    const floats = await upstream.embeddings.create({ model: "gpt-upstream-a", input: ["first text", "second text", "third"], encoding_format: "float" });
    expect(many.data.map((item) => item.embedding)).toEqual(floats.data.map((item) => item.embedding));
    const raw = await post("/v1/embeddings", key, { model: "gpt-test", input: "x", encoding_format: "base64" });
    expect(typeof raw.body.data[0].embedding).toBe("string");

    const short = await client.embeddings.create({ model: "gpt-test", input: [[1, 2, 3], [4, 5]], dimensions: 8, encoding_format: "float" });
    expect(short.data.map((item) => item.embedding.length)).toEqual([8, 8]);
    expect(short.usage).toEqual({ prompt_tokens: 5, total_tokens: 5 });
  });

  it("is billed exactly input tokens x the input price, in the ledger and /v1/usage", async () => {
    const { key, id } = await newKey({ quotaNano: 1_000_000_000n });
    const client = openaiFor(key);
    const first = await client.embeddings.create({ model: "gpt-test", input: "a sentence long enough to cost a few tokens", encoding_format: "float" });
    const second = await client.embeddings.create({ model: "gpt-test", input: ["one", "two", "three", "four and more words here"] });
    const reported = simulator.stats.requests.map((record) => record.usage!.input_tokens);
    expect(reported).toEqual([first.usage.prompt_tokens, second.usage.prompt_tokens]);
    const tokens = reported[0]! + reported[1]!;
    const prices = unitPrices(proxy.services.routing.serverOption("standard")!, "gpt-test")!;
    const cost = costOfUsage({ ...EMPTY_USAGE, inputTokens: reported[0]! }, prices) + costOfUsage({ ...EMPTY_USAGE, inputTokens: reported[1]! }, prices);
    expect(cost).toBeGreaterThan(0n);

    await expect.poll(async () => (await usageOf(key)).consumption.requests, { timeout: 3_000, interval: 50 }).toBe(2);
    const usage = await usageOf(key);
    expect(usage.by_model).toEqual([expect.objectContaining({ model: "gpt-test", requests: 2, input_tokens: tokens, output_tokens: 0, cost: formatUsd(cost) })]);
    expect(usage.quota.used).toBe(formatUsd(cost));
    const rows = await controlPlane.services.db.prisma.usageRecord.findMany({ where: { apiKeyId: id }, orderBy: { startedAt: "asc" } });
    expect(rows.map((row) => [row.endpoint, Number(row.inputTokens), Number(row.outputTokens), row.status])).toEqual([
      ["embeddings", reported[0], 0, "ok"],
      ["embeddings", reported[1], 0, "ok"],
    ]);
    expect(rows.reduce((sum, row) => sum + row.costNano, 0n)).toBe(cost);
  });

  it("a model without an OpenAI-shape target: 400 naming model, no upstream call", async () => {
    const { key } = await newKey();
    const error = await openaiFor(key).embeddings.create({ model: "claude-test", input: "hi" }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe("model");
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).code).toBe("unsupported_feature");
    expect(simulator.stats.requests).toEqual([]);
  });

  it("a model on both shapes is served by its OpenAI-shape target", async () => {
    const { key } = await newKey({ serverOption: "cross-shape" });
    const answer = await openaiFor(key).embeddings.create({ model: "mixed-test", input: "both", encoding_format: "float" });
    expect(answer.data[0]!.embedding).toHaveLength(1536);
    expect(simulator.stats.requests.map((record) => [record.path, record.model])).toEqual([["/v1/embeddings", "mixed-openai"]]);
  });

  it("bad input, encoding_format or dimensions: 400 naming the field, before any upstream call", async () => {
    const { key } = await newKey();
    const cases: [Record<string, unknown>, string][] = [
      [{ model: "gpt-test" }, "input"],
      [{ model: "gpt-test", input: null }, "input"],
      [{ model: "gpt-test", input: "" }, "input"],
      [{ model: "gpt-test", input: [] }, "input"],
      [{ model: "gpt-test", input: 42 }, "input"],
      [{ model: "gpt-test", input: { text: "x" } }, "input"],
      [{ model: "gpt-test", input: ["a", 1] }, "input.1"],
      [{ model: "gpt-test", input: ["a", ""] }, "input.1"],
      [{ model: "gpt-test", input: [1, -2] }, "input.1"],
      [{ model: "gpt-test", input: [[1], []] }, "input.1"],
      [{ model: "gpt-test", input: [[1], [1.5]] }, "input.1"],
      [{ model: "gpt-test", input: [null] }, "input.0"],
      [{ model: "gpt-test", input: Array.from({ length: 2049 }, () => "x") }, "input"],
      [{ model: "gpt-test", input: "x", encoding_format: "int8" }, "encoding_format"],
      [{ model: "gpt-test", input: "x", dimensions: 0 }, "dimensions"],
      [{ model: "gpt-test", input: "x", dimensions: 1.5 }, "dimensions"],
      [{ model: "gpt-test", input: "x", dimensions: "8" }, "dimensions"],
      [{ model: "gpt-test", input: "x", stream: true }, "stream"],
      [{ input: "x" }, "model"],
    ];
    for (const [body, param] of cases) {
      const answer = await post("/v1/embeddings", key, body);
      expect([answer.status, answer.body.error?.type, answer.body.error?.param], JSON.stringify(body).slice(0, 80)).toEqual([400, "invalid_request_error", param]);
    }
    expect(simulator.stats.requests).toEqual([]);
  });

  it("the Vercel AI SDK: embed and embedMany against the gateway", async () => {
    const { key } = await newKey();
    const provider = createOpenAI({ baseURL: `${proxy.url}/v1`, apiKey: key });
    const one = await embed({ model: provider.embedding("gpt-test"), value: "sunny day at the beach", maxRetries: 0 });
    expect(one.embedding).toHaveLength(1536);
    expect(one.usage.tokens).toBe(simulator.stats.last!.usage!.input_tokens);
    const direct = await upstreamOpenai().embeddings.create({ model: "gpt-upstream-a", input: "sunny day at the beach", encoding_format: "float" });
    expect(one.embedding).toEqual(direct.data[0]!.embedding);

    const values = ["rainy day in the mountains", "snowy night in the city"];
    const many = await embedMany({ model: provider.embedding("gpt-test"), values, maxRetries: 0 });
    expect(many.embeddings.map((vector) => vector.length)).toEqual([1536, 1536]);
    expect(many.embeddings[0]).not.toEqual(many.embeddings[1]);
    expect(many.usage.tokens).toBeGreaterThan(0);
    const sized = await embed({ model: provider.embedding("gpt-test"), value: "short", providerOptions: { openai: { dimensions: 4 } }, maxRetries: 0 });
    expect(sized.embedding).toHaveLength(4);
  });
});
