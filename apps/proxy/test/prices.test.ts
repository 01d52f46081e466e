import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseGatewayFile } from "@gateway/config";
import { createLogger } from "@gateway/logger";
import { createTestDatabase, resolveTestServices, type TestDatabase } from "@gateway/testing";
import { startSimulator, type Simulator } from "@gateway/simulator";
import { applyGatewayFile, createVendorToken, loadControlPlaneConfig, startControlPlane, type RunningControlPlane } from "@gateway/control-plane";
import { loadBillingWorkerConfig, startBillingWorker, type RunningBillingWorker } from "@gateway/billing-worker";
import { loadProxyConfig } from "../src/config.ts";
import { startProxy, type RunningProxy } from "../src/server.ts";
import { SIMULATOR_SECRET } from "./stack.ts";

/**
 * Prices as the providers charge them (contract section 12), end to end: the simulator reports
 * each usage part on demand (`#sim:` directives), the real proxy relays it (same shape and
 * translated, streamed and not), the billing worker prices it into Postgres, and each ledger row's
 * cost_nano must equal the price computed by hand in the table below.
 *
 * Every prompt is exactly 4000 characters, which the simulator counts as 1000 input tokens (more
 * when the directives ask for more cache tokens than that); `#sim:chunks=10` gives 10 output tokens.
 */
const GATEWAY_YAML = (simulatorUrl: string) => `
upstreams:
  - { name: sim-openai, shape: openai, base_url: "${simulatorUrl}/v1", secret_env: TEST_SIMULATOR_KEY }
  - { name: sim-anthropic, shape: anthropic, base_url: "${simulatorUrl}", secret_env: TEST_SIMULATOR_KEY }
models:
  - name: claude-priced
    prices:
      input: "3.00"
      output: "15.00"
      cached_input: "0.30"
      request: "0.0001"
      web_search: "0.01"
      tiers:
        - { above_input_tokens: 1000, input: "6.00", output: "22.50", cached_input: "0.60", cache_write: "7.50", cache_write_1h: "12.00" }
    targets: [ { upstream: sim-anthropic, model: claude-upstream } ]
  - name: gpt-priced
    prices: { input: "0.15", output: "0.60", cached_input: "0.075" }
    targets: [ { upstream: sim-openai, model: gpt-upstream } ]
  - name: image-priced
    prices: { image: "0.04" }
    targets: [ { upstream: sim-openai, model: image-upstream } ]
  - name: flat-priced
    prices: { request: "0.002" }
    targets: [ { upstream: sim-openai, model: flat-upstream } ]
server_options:
  - { name: standard, models: [claude-priced, gpt-priced, image-priced, flat-priced] }
  - { name: marked-up, models: [claude-priced], price_multiplier: "1.5" }
  - name: custom
    models: [claude-priced]
    prices:
      claude-priced: { input: "2.00", web_search: "0.02", tiers: [ { above_input_tokens: 1000, input: "4.00" } ] }
vendors:
  - { name: price-vendor, server_options: [standard, marked-up, custom] }
`;

type Endpoint = "chat" | "messages" | "responses" | "images";

interface Case {
  name: string;
  option: "standard" | "marked-up" | "custom";
  model: string;
  endpoint: Endpoint;
  stream: boolean;
  directives: string;
  /** Hand-computed: tokens x pico-USD per token (and per unit), / 1000, rounded once. */
  costNano: bigint;
  /** Ledger parts the row must show. */
  parts?: Partial<Record<"input_tokens" | "output_tokens" | "cached_input_tokens" | "cache_write_tokens" | "cache_write_1h_tokens" | "reasoning_tokens" | "images" | "web_search_requests", number>>;
}

// claude-priced, pico per token: input 3e6, output 15e6, cached 3e5, 5m write 3.75e6 (1.25x), 1h write 6e6 (2x);
// request 1e8 pico, web search 1e10 pico. Above 1000 input tokens: input 6e6, output 22.5e6, cached 6e5.
// gpt-priced: input 150_000, output 600_000, cached 75_000.
const CASES: Case[] = [
  // 600 x 3e6 + 400 x 3e5 + 10 x 15e6 + 1e8 = 2.17e9 pico
  { name: "cache reads, messages", option: "standard", model: "claude-priced", endpoint: "messages", stream: false, directives: "#sim:chunks=10 #sim:cached=400", costNano: 2_170_000n, parts: { input_tokens: 1000, cached_input_tokens: 400, output_tokens: 10 } },
  // 700 x 3e6 + 200 x 3.75e6 + 100 x 6e6 + 10 x 15e6 + 1e8 = 3.7e9 pico
  { name: "5-minute and 1-hour writes, messages stream", option: "standard", model: "claude-priced", endpoint: "messages", stream: true, directives: "#sim:chunks=10 #sim:cache_write=200 #sim:cache_write_1h=100", costNano: 3_700_000n, parts: { input_tokens: 1000, cache_write_tokens: 300, cache_write_1h_tokens: 100 } },
  // 1500 input tokens, all cache reads, above 1000: 1500 x 6e5 + 10 x 22.5e6 + 1e8 = 1.225e9 pico
  { name: "a tier crossing, messages", option: "standard", model: "claude-priced", endpoint: "messages", stream: false, directives: "#sim:chunks=10 #sim:cached=1500", costNano: 1_225_000n, parts: { input_tokens: 1500, cached_input_tokens: 1500 } },
  // exactly 1000 is not above the threshold: 1000 x 3e6 + 10 x 15e6 + 1e8 + 2 x 1e10 = 2.325e10 pico
  { name: "web searches at the threshold, messages stream", option: "standard", model: "claude-priced", endpoint: "messages", stream: true, directives: "#sim:chunks=10 #sim:web_search=2", costNano: 23_250_000n, parts: { input_tokens: 1000, web_search_requests: 2 } },
  // reasoning is inside output: 1000 x 150_000 + 60 x 600_000 = 1.86e8 pico
  { name: "reasoning, chat stream", option: "standard", model: "gpt-priced", endpoint: "chat", stream: true, directives: "#sim:chunks=10 #sim:reasoning=50", costNano: 186_000n, parts: { output_tokens: 60, reasoning_tokens: 50 } },
  // 2 x 0.04 USD
  { name: "images", option: "standard", model: "image-priced", endpoint: "images", stream: false, directives: "", costNano: 80_000_000n, parts: { images: 2 } },
  // only the flat fee: 0.002 USD
  { name: "a flat request fee, chat", option: "standard", model: "flat-priced", endpoint: "chat", stream: false, directives: "#sim:chunks=10", costNano: 2_000_000n },
  // the first case x 1.5
  { name: "a multiplier, messages", option: "marked-up", model: "claude-priced", endpoint: "messages", stream: false, directives: "#sim:chunks=10 #sim:cached=400", costNano: 3_255_000n },
  // override input 2e6, web search 2e10: 1000 x 2e6 + 10 x 15e6 + 1e8 + 2 x 2e10 = 4.225e10 pico
  { name: "an override, messages stream", option: "custom", model: "claude-priced", endpoint: "messages", stream: true, directives: "#sim:chunks=10 #sim:web_search=2", costNano: 42_250_000n },
  // the override's own tier (input only; the rest its base): 1500 x 3e5 + 10 x 15e6 + 1e8 = 7e8 pico
  { name: "an override's tier, messages", option: "custom", model: "claude-priced", endpoint: "messages", stream: false, directives: "#sim:chunks=10 #sim:cached=1500", costNano: 700_000n },
  // translated, OpenAI client on an Anthropic upstream: 500 x 3e6 + 400 x 3e5 + 100 x 6e6 + 10 x 15e6 + 1e8 = 2.47e9 pico
  { name: "cache reads and a 1-hour write, chat on Anthropic, stream", option: "standard", model: "claude-priced", endpoint: "chat", stream: true, directives: "#sim:chunks=10 #sim:cached=400 #sim:cache_write_1h=100", costNano: 2_470_000n, parts: { cached_input_tokens: 400, cache_write_1h_tokens: 100 } },
  // translated, Anthropic client on an OpenAI upstream: 600 x 150_000 + 400 x 75_000 + 30 x 600_000 = 1.38e8 pico
  { name: "cache reads and reasoning, messages on OpenAI", option: "standard", model: "gpt-priced", endpoint: "messages", stream: false, directives: "#sim:chunks=10 #sim:cached=400 #sim:reasoning=20", costNano: 138_000n, parts: { cached_input_tokens: 400, reasoning_tokens: 20, output_tokens: 30 } },
  // Responses client on an Anthropic upstream: 1000 x 3e6 + 10 x 15e6 + 1e8 + 1e10 = 1.325e10 pico
  { name: "a web search, responses on Anthropic", option: "standard", model: "claude-priced", endpoint: "responses", stream: false, directives: "#sim:chunks=10 #sim:web_search=1", costNano: 13_250_000n, parts: { web_search_requests: 1 } },
];

const silent = createLogger({ name: "test", level: "silent" });
let database: TestDatabase;
let simulator: Simulator;
let controlPlane: RunningControlPlane;
let worker: RunningBillingWorker;
let proxy: RunningProxy;
const keys = new Map<string, string>();

beforeAll(async () => {
  const { redisUrl } = await resolveTestServices();
  const prefix = `test-${randomUUID().slice(0, 8)}`;
  database = await createTestDatabase();
  simulator = await startSimulator({ apiKey: SIMULATOR_SECRET });
  const internal = { INTERNAL_TOKEN: `internal-${randomUUID()}` };
  controlPlane = await startControlPlane(loadControlPlaneConfig({ DATABASE_URL: database.url, REDIS_URL: redisUrl, REDIS_PREFIX: prefix, PORT: "0", ...internal }), silent);
  await applyGatewayFile(controlPlane.services.db.prisma, controlPlane.services.records, parseGatewayFile(GATEWAY_YAML(simulator.url)));
  const vendorToken = (await createVendorToken(controlPlane.services.db.prisma, { vendor: "price-vendor", name: "t", scopes: ["keys:create"] })).plaintext;
  worker = await startBillingWorker(loadBillingWorkerConfig({ DATABASE_URL: database.url, REDIS_URL: redisUrl, REDIS_PREFIX: prefix, PORT: "0" }), silent);
  proxy = await startProxy(loadProxyConfig({ PORT: "0", METRICS_PORT: "0", REDIS_URL: redisUrl, REDIS_PREFIX: prefix, CONTROL_PLANE_URL: controlPlane.url, ...internal }), silent);
  for (const option of ["standard", "marked-up", "custom"]) {
    const response = await fetch(`${controlPlane.url}/api/keys`, {
      method: "POST",
      headers: { authorization: `Bearer ${vendorToken}`, "content-type": "application/json" },
      body: JSON.stringify({ server_option: option, name: option }),
    });
    expect(response.status).toBe(201);
    keys.set(option, ((await response.json()) as { key: string }).key);
  }
}, 60_000);

afterAll(async () => {
  await proxy?.close();
  await worker?.close();
  const redis = controlPlane?.services.redis;
  const leftovers = redis ? await redis.keys(`${controlPlane.services.config.REDIS_PREFIX}:*`) : [];
  if (leftovers.length) await redis!.del(...leftovers);
  await controlPlane?.close();
  await simulator?.close();
  await database?.drop();
});

/** A prompt of exactly 4000 characters: 1000 input tokens to the simulator. */
function prompt(directives: string): string {
  return `${directives} `.padEnd(4000, "x");
}

function requestOf(testCase: Case): { path: string; body: Record<string, unknown> } {
  const content = prompt(testCase.directives);
  switch (testCase.endpoint) {
    case "chat":
      return { path: "/v1/chat/completions", body: { model: testCase.model, stream: testCase.stream, messages: [{ role: "user", content }] } };
    case "messages":
      return { path: "/v1/messages", body: { model: testCase.model, stream: testCase.stream, max_tokens: 1000, messages: [{ role: "user", content }] } };
    case "responses":
      return { path: "/v1/responses", body: { model: testCase.model, stream: testCase.stream, input: content } };
    case "images":
      return { path: "/v1/images/generations", body: { model: testCase.model, prompt: "a red square", n: 2 } };
    default: {
      const never: never = testCase.endpoint;
      throw new Error(`unknown endpoint ${String(never)}`);
    }
  }
}

describe("the ledger prices every usage part as the providers charge it", () => {
  it.each(CASES)("$name: cost_nano is the hand-computed price", async (testCase) => {
    const { path, body } = requestOf(testCase);
    const response = await fetch(`${proxy.url}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${keys.get(testCase.option)}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    expect(response.status, text).toBe(200);
    const requestId = response.headers.get("x-request-id")!;
    const prisma = controlPlane.services.db.prisma;
    await expect.poll(async () => (await prisma.usageRecord.findUnique({ where: { requestId } })) !== null, { timeout: 5_000, interval: 50 }).toBe(true);
    const row = (await prisma.usageRecord.findUnique({ where: { requestId } }))!;
    const parts = {
      input_tokens: Number(row.inputTokens),
      output_tokens: Number(row.outputTokens),
      cached_input_tokens: Number(row.cachedInputTokens),
      cache_write_tokens: Number(row.cacheWriteTokens),
      cache_write_1h_tokens: Number(row.cacheWrite1hTokens),
      reasoning_tokens: Number(row.reasoningTokens),
      images: row.images,
      web_search_requests: Number(row.webSearchRequests),
    };
    expect(parts).toMatchObject(testCase.parts ?? {});
    expect(row.costNano).toBe(testCase.costNano);
  });
});
