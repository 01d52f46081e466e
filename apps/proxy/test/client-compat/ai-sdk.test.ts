import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { APICallError, embed, embedMany, generateText, isStepCount, jsonSchema, streamText, tool, type LanguageModel } from "ai";
import { createOpenAI, type OpenAIProvider } from "@ai-sdk/openai";
import { createAnthropic, type AnthropicProvider } from "@ai-sdk/anthropic";
import { expectedText, MODELS, reported, startCompatStack, type CompatStack } from "./compat-stack.ts";

/**
 * The Vercel AI SDK (`ai` 7) with its providers, unmodified: `@ai-sdk/openai` chat
 * (`openai.chat`) and Responses (`openai.responses`), and `@ai-sdk/anthropic`, each on an
 * OpenAI-shape model (`gpt-test`) and an Anthropic-shape model (`claude-test`): generate, stream,
 * a tool call over two steps; `embed` where the shape has embeddings.
 */
let compat: CompatStack;
let openaiProvider: OpenAIProvider;
let anthropicProvider: AnthropicProvider;

beforeAll(async () => {
  compat = await startCompatStack();
  openaiProvider = createOpenAI({ baseURL: `${compat.url}/v1`, apiKey: compat.key });
  anthropicProvider = createAnthropic({ baseURL: `${compat.url}/v1`, apiKey: compat.key });
});
afterAll(async () => compat?.close());
beforeEach(() => compat.resetUpstream());

const PROVIDERS: { provider: string; path: (shape: "openai" | "anthropic") => string; make: (model: string) => LanguageModel }[] = [
  { provider: "@ai-sdk/openai chat", path: (shape) => (shape === "openai" ? "/v1/chat/completions" : "/v1/messages"), make: (model) => openaiProvider.chat(model) },
  { provider: "@ai-sdk/openai responses", path: (shape) => (shape === "openai" ? "/v1/responses" : "/v1/messages"), make: (model) => openaiProvider.responses(model) },
  { provider: "@ai-sdk/anthropic", path: (shape) => (shape === "openai" ? "/v1/chat/completions" : "/v1/messages"), make: (model) => anthropicProvider(model) },
];
const CASES = PROVIDERS.flatMap((provider) => MODELS.map((model) => ({ ...provider, ...model })));

const weatherCalls: { city: string }[] = [];
const weather = tool({
  description: "The weather in a city",
  inputSchema: jsonSchema<{ city: string }>({ type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false }),
  execute: async ({ city }) => {
    weatherCalls.push({ city });
    return `Sunny in ${city}, 21C`;
  },
});

/** The simulator's usage summed over every upstream call of the test. */
function upstreamTotals(expectedCalls: number, path: string): { input: number; output: number } {
  const records = compat.upstream();
  expect(records).toHaveLength(expectedCalls);
  const totals = { input: 0, output: 0 };
  for (const record of records) {
    expect(record.path).toBe(path);
    const usage = reported(record);
    totals.input += usage.input;
    totals.output += usage.output;
  }
  return totals;
}

describe.each(CASES)("$provider on $model ($shape-shape upstream)", ({ make, model, shape, path }) => {
  it("generateText", async () => {
    const prompt = `Hello AI SDK, ${model}`;
    const result = await generateText({ model: make(model), system: "Be brief.", prompt, maxOutputTokens: 256, maxRetries: 0 });
    expect(result.text).toBe(expectedText(prompt));
    expect(result.finishReason).toBe("stop");
    const usage = upstreamTotals(1, path(shape));
    expect(result.usage).toMatchObject({ inputTokens: usage.input, outputTokens: usage.output });
    expect(result.warnings ?? []).toEqual([]);
  });

  it("streamText", async () => {
    const prompt = `Stream with the AI SDK, ${model}`;
    const errors: unknown[] = [];
    const result = streamText({ model: make(model), prompt, maxOutputTokens: 256, maxRetries: 0, onError: ({ error }) => void errors.push(error) });
    let streamed = "";
    for await (const delta of result.textStream) streamed += delta;
    expect(errors).toEqual([]);
    expect(streamed).toBe(expectedText(prompt));
    expect(await result.text).toBe(expectedText(prompt));
    expect(await result.finishReason).toBe("stop");
    const usage = upstreamTotals(1, path(shape));
    expect(await result.usage).toMatchObject({ inputTokens: usage.input, outputTokens: usage.output });
  });

  it("generateText with a tool over two steps", async () => {
    weatherCalls.length = 0;
    const prompt = `What is the weather in Paris? (AI SDK generate, ${model})`;
    const result = await generateText({ model: make(model), prompt, tools: { weather }, stopWhen: isStepCount(2), maxOutputTokens: 256, maxRetries: 0 });
    expect(weatherCalls).toEqual([{ city: "test" }]);
    expect(result.steps).toHaveLength(2);
    expect(result.steps[0]!.finishReason).toBe("tool-calls");
    expect(result.steps[0]!.toolCalls).toMatchObject([{ toolName: "weather", input: { city: "test" } }]);
    expect(result.steps[0]!.toolResults).toMatchObject([{ toolName: "weather", output: "Sunny in test, 21C" }]);
    expect(result.finishReason).toBe("stop");
    expect(result.text).toBe(expectedText(prompt));
    const usage = upstreamTotals(2, path(shape));
    expect(result.totalUsage).toMatchObject({ inputTokens: usage.input, outputTokens: usage.output });
  });

  it("streamText with a tool over two steps", async () => {
    weatherCalls.length = 0;
    const prompt = `What is the weather in Lyon? (AI SDK stream, ${model})`;
    const errors: unknown[] = [];
    const result = streamText({ model: make(model), prompt, tools: { weather }, stopWhen: isStepCount(2), maxOutputTokens: 256, maxRetries: 0, onError: ({ error }) => void errors.push(error) });
    const parts: string[] = [];
    for await (const part of result.fullStream) parts.push(part.type);
    expect(errors).toEqual([]);
    expect(parts).not.toContain("error");
    expect(parts).toContain("tool-call");
    expect(parts).toContain("tool-result");
    expect(weatherCalls).toEqual([{ city: "test" }]);
    const steps = await result.steps;
    expect(steps).toHaveLength(2);
    expect(steps[0]!.finishReason).toBe("tool-calls");
    expect(await result.finishReason).toBe("stop");
    expect(await result.text).toBe(expectedText(prompt));
    const usage = upstreamTotals(2, path(shape));
    expect(await result.totalUsage).toMatchObject({ inputTokens: usage.input, outputTokens: usage.output });
  });
});

describe("AI SDK embed", () => {
  it("embed and embedMany on the OpenAI-shape model", async () => {
    const single = await embed({ model: openaiProvider.embedding("gpt-test"), value: "sunny day at the beach", maxRetries: 0 });
    expect(single.embedding.length).toBeGreaterThan(0);
    expect(single.embedding.every((value) => Number.isFinite(value))).toBe(true);
    const upstream = compat.lastUpstream();
    expect(upstream.path).toBe("/v1/embeddings");
    expect(single.usage.tokens).toBe(upstream.usage!.input_tokens);
    expect(single.usage.tokens).toBeGreaterThan(0);

    const many = await embedMany({ model: openaiProvider.embedding("gpt-test"), values: ["one", "two", "three"], maxRetries: 0 });
    expect(many.embeddings).toHaveLength(3);
    expect(many.embeddings.every((vector) => vector.length === single.embedding.length)).toBe(true);
  });

  it("embed on the Anthropic-shape model: 400 naming model", async () => {
    const error = await embed({ model: openaiProvider.embedding("claude-test"), value: "hello", maxRetries: 0 }).catch((caught: unknown) => caught);
    expect(APICallError.isInstance(error)).toBe(true);
    const call = error as APICallError;
    expect(call.statusCode).toBe(400);
    expect(JSON.parse(call.responseBody!)).toMatchObject({ type: "error", error: { type: "invalid_request_error", param: "model" } });
    expect(compat.upstream()).toHaveLength(0);
  });
});
