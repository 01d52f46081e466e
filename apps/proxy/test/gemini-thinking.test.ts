import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { parseGatewayFile } from "@gateway/config";
import { applyGatewayFile } from "@gateway/control-plane";
import { startSimulator, type Simulator } from "@gateway/simulator";
import { geminiGatewayYaml } from "./gemini-stack.ts";
import { SIMULATOR_SECRET, startStack, type Stack } from "./stack.ts";

/**
 * Reasoning from clients of other shapes reaches a Gemini model as the one `thinkingConfig` field
 * its capabilities name (`thinking_style`, `can_disable_thinking`), against a simulator in strict
 * mode that refuses what Google refuses: `thinkingLevel` on Gemini 2.5, a level the model does not
 * take (MINIMAL on Pro), both fields at once, `thinkingBudget: 0` on Gemini 2.5 Pro.
 */
let stack: Stack;
let strict: Simulator;
let key: string;

const MODELS = `
  - name: g3-level
    prices: { input: "2.00", output: "12.00" }
    capabilities: { max_output_tokens: 65536, thinking_style: level, can_disable_thinking: false }
    targets: [ { upstream: sim-gemini-strict, model: gemini-3.1-pro-preview } ]
  - name: g25-budget
    prices: { input: "1.25", output: "10.00" }
    capabilities: { max_output_tokens: 65536, thinking_style: budget, can_disable_thinking: false }
    targets: [ { upstream: sim-gemini-strict, model: gemini-2.5-pro } ]
  - name: g25-said-level
    prices: { input: "1.25", output: "10.00" }
    capabilities: { max_output_tokens: 65536, thinking_style: level }
    targets: [ { upstream: sim-gemini-strict, model: gemini-2.5-pro } ]
`;

beforeAll(async () => {
  stack = await startStack();
  strict = await startSimulator({ apiKey: SIMULATOR_SECRET, strict: true });
  const yaml = geminiGatewayYaml(stack.simulator.url)
    .replace("upstreams:\n", `upstreams:\n  - { name: sim-gemini-strict, shape: gemini, base_url: "${strict.url}/v1beta", secret_env: TEST_SIMULATOR_KEY, timeouts: { connect_ms: 1000, first_byte_ms: 1500, response_ms: 2500 } }\n`)
    .replace("models:\n", `models:${MODELS}`)
    .replace("{ name: gemini, models: [", "{ name: gemini, models: [g3-level, g25-budget, g25-said-level, ");
  await applyGatewayFile(stack.controlPlane.db.prisma, stack.controlPlane.records, parseGatewayFile(yaml));
  key = (await stack.mintKey({ serverOption: "gemini" })).key;
  const deadline = Date.now() + 5_000;
  while ((await fetch(`${stack.proxy.url}/v1/models/g25-said-level`, { headers: { authorization: `Bearer ${key}` } })).status !== 200 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
});
afterAll(async () => {
  await strict?.close();
  await stack?.close();
});
beforeEach(() => strict.stats.clear());

/** The thinkingConfig the strict simulator got last, and its answer's status. */
function sent(): { thinkingConfig: unknown; status: number | null } {
  const last = strict.stats.last!;
  return { thinkingConfig: (last.body as { generationConfig?: { thinkingConfig?: unknown } }).generationConfig?.thinkingConfig, status: last.status };
}

const openai = () => new OpenAI({ apiKey: key, baseURL: `${stack.proxy.url}/v1`, maxRetries: 0 });
const anthropic = () => new Anthropic({ apiKey: key, baseURL: stack.proxy.url, maxRetries: 0 });
const ask = (model: string, reasoning_effort: OpenAI.ReasoningEffort) => openai().chat.completions.create({ model, reasoning_effort, messages: [{ role: "user", content: "Think, then answer" }] });
const think = (model: string, budget_tokens: number) =>
  anthropic().messages.create({ model, max_tokens: 30_000, thinking: { type: "enabled", budget_tokens }, messages: [{ role: "user", content: "Think, then answer" }] }, { timeout: 30_000 });

describe("a Gemini 3 model with thinking_style: level (cannot be off)", () => {
  it("openai reasoning_effort as thinkingLevel; none as LOW, the least Gemini 3 Pro takes", async () => {
    await ask("g3-level", "high");
    expect(sent()).toEqual({ thinkingConfig: { thinkingLevel: "HIGH", includeThoughts: true }, status: 200 });
    await ask("g3-level", "none");
    expect(sent()).toEqual({ thinkingConfig: { thinkingLevel: "LOW" }, status: 200 });
  });

  it("anthropic thinking.budget_tokens as the nearest level", async () => {
    await think("g3-level", 2048);
    expect(sent()).toEqual({ thinkingConfig: { thinkingLevel: "LOW", includeThoughts: true }, status: 200 });
    await think("g3-level", 20_000);
    expect(sent()).toEqual({ thinkingConfig: { thinkingLevel: "HIGH", includeThoughts: true }, status: 200 });
  });
});

describe("a Gemini 2.5 Pro model with thinking_style: budget (cannot be off)", () => {
  it("openai reasoning_effort as thinkingBudget; none as 128, the least 2.5 Pro takes", async () => {
    await ask("g25-budget", "medium");
    expect(sent()).toEqual({ thinkingConfig: { thinkingBudget: 8192, includeThoughts: true }, status: 200 });
    await ask("g25-budget", "none");
    expect(sent()).toEqual({ thinkingConfig: { thinkingBudget: 128 }, status: 200 });
  });

  it("anthropic thinking.budget_tokens as a budget: the client's own number", async () => {
    await think("g25-budget", 5000);
    expect(sent()).toEqual({ thinkingConfig: { thinkingBudget: 5000, includeThoughts: true }, status: 200 });
  });

  it("a file that names the wrong style gets Google's refusal (the strict simulator tells them apart)", async () => {
    const error = await ask("g25-said-level", "high").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(sent()).toEqual({ thinkingConfig: { thinkingLevel: "HIGH", includeThoughts: true }, status: 400 });
  });
});
