import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { generateText, jsonSchema, streamText, tool } from "ai";
import { createOpenAI } from "@ai-sdk/openai";
import { createAnthropic } from "@ai-sdk/anthropic";
import type { Stack } from "./stack.ts";
import { genai, startGeminiStack } from "./gemini-stack.ts";

/**
 * Contract section 16 across shapes, through the real stack and the neutral core: `@google/genai`
 * (generateContent, generateContentStream, a chat with function calling over two steps,
 * countTokens, embedContent) on an OpenAI-shape and an Anthropic-shape model; the official openai
 * and anthropic SDKs and the AI SDK on the Gemini-shape model. What reaches the upstream is checked
 * in its own shape, and every call's billing event carries the upstream's usage.
 */
let stack: Stack;
let key: string;
let ai: GoogleGenAI;

beforeAll(async () => {
  ({ stack, key } = await startGeminiStack());
  ai = genai(stack, key);
});
afterAll(async () => stack?.close());
beforeEach(() => {
  stack.simulator.faults.clear();
  stack.simulator.stats.clear();
});

const weather = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };
const ARGS = { city: "Lisbon" };
const DIRECTIVE = `Weather in Lisbon? #sim:tool=get_weather #sim:tool_args=${Buffer.from(JSON.stringify(ARGS)).toString("base64url")}`;

describe.each([
  { model: "gpt-test", upstream: "/v1/chat/completions", shape: "OpenAI" },
  { model: "claude-test", upstream: "/v1/messages", shape: "Anthropic" },
])("@google/genai on the $shape-shape model $model", ({ model, upstream }) => {
  it("generateContent: system instruction, generationConfig and thinking reach the upstream in its shape; usage back", async () => {
    const answer = await ai.models.generateContent({
      model,
      contents: "Say hello",
      config: { systemInstruction: "Be brief.", maxOutputTokens: 100, temperature: 0.5, stopSequences: ["END"] },
    });
    expect(answer.text!.length).toBeGreaterThan(0);
    expect(answer.candidates?.[0]?.finishReason).toBe("STOP");
    expect(answer.usageMetadata?.promptTokenCount).toBeGreaterThan(0);
    expect(answer.usageMetadata?.totalTokenCount).toBe((answer.usageMetadata?.promptTokenCount ?? 0) + (answer.usageMetadata?.candidatesTokenCount ?? 0) + (answer.usageMetadata?.thoughtsTokenCount ?? 0));
    const sent = stack.simulator.stats.last!;
    expect(sent.path).toBe(upstream);
    const body = sent.body as Record<string, unknown>;
    expect(body.temperature).toBe(0.5);
    expect(JSON.stringify(body)).toContain("Be brief.");
    expect(body.max_tokens ?? body.max_completion_tokens).toBe(100);
  });

  it("billed under gemini.generate_content with the upstream's usage, as the client was told it", async () => {
    const response = await fetch(`${stack.proxy.url}/v1beta/models/${model}:generateContent`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-goog-api-key": key },
      body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "Say hello" }] }] }),
    });
    expect(response.status).toBe(200);
    const usage = ((await response.json()) as { usageMetadata: { promptTokenCount: number; candidatesTokenCount: number } }).usageMetadata;
    const events = await stack.billingEvents(response.headers.get("x-request-id")!);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ endpoint: "gemini.generate_content", model, status: "ok", estimated: false });
    expect(events[0]!.usage).toMatchObject({ inputTokens: usage.promptTokenCount, outputTokens: usage.candidatesTokenCount });
  });

  it("generateContentStream: text deltas, the last chunk with STOP and usageMetadata", async () => {
    let text = "";
    const chunks: Array<{ finish?: string; usage?: number }> = [];
    for await (const chunk of await ai.models.generateContentStream({ model, contents: "Tell me a story" })) {
      text += chunk.text ?? "";
      chunks.push({ finish: chunk.candidates?.[0]?.finishReason, usage: chunk.usageMetadata?.candidatesTokenCount });
    }
    expect(text.length).toBeGreaterThan(0);
    expect(chunks.at(-1)!.finish).toBe("STOP");
    expect(chunks.at(-1)!.usage).toBeGreaterThan(0);
    expect(chunks.slice(0, -1).every((chunk) => chunk.finish === undefined)).toBe(true);
    expect(stack.simulator.stats.last!.stream).toBe(true);
  });

  it("a chat with function calling over two steps (streamed second step); the result goes back matched to its call", async () => {
    const chat = ai.chats.create({ model, config: { tools: [{ functionDeclarations: [{ name: "get_weather", description: "The weather", parametersJsonSchema: weather }] }] } });
    const first = await chat.sendMessage({ message: DIRECTIVE });
    const call = first.functionCalls?.[0];
    expect(call).toMatchObject({ name: "get_weather", args: ARGS, id: expect.any(String) });
    let text = "";
    for await (const chunk of await chat.sendMessageStream({ message: [{ functionResponse: { id: call!.id!, name: "get_weather", response: { temperature: 21 } } }] })) text += chunk.text ?? "";
    expect(text.length).toBeGreaterThan(0);
    const sent = JSON.stringify(stack.simulator.stats.last!.body);
    // The call and its result in the upstream's own words, tied by the same id.
    expect(sent).toContain(call!.id!);
    expect(sent).toContain("temperature");
  });

  it("a maxOutputTokens above the model's maximum is lowered to it and listed by its path", async () => {
    const response = await fetch(`${stack.proxy.url}/v1beta/models/${model}:generateContent`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-goog-api-key": key },
      body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "hi" }] }], generationConfig: { maxOutputTokens: 900_000 } }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-gateway-dropped-params")).toBe("generationConfig.maxOutputTokens");
    const sent = stack.simulator.stats.last!.body as { max_tokens?: number; max_completion_tokens?: number };
    expect(sent.max_tokens ?? sent.max_completion_tokens).toBe(model === "gpt-test" ? 16384 : 64000);
  });

  it("countTokens is counted by the gateway; an unknown Gemini field is a 400 naming it", async () => {
    const counted = await ai.models.countTokens({ model, contents: "How many tokens is this sentence?" });
    expect(counted.totalTokens).toBeGreaterThan(3);
    const response = await fetch(`${stack.proxy.url}/v1beta/models/${model}:generateContent`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-goog-api-key": key },
      body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "hi" }] }], cachedContent: "cachedContents/abc" }),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { status: string; details: Array<{ metadata: { param: string } }> } };
    expect(body.error.status).toBe("INVALID_ARGUMENT");
    expect(body.error.details[0]!.metadata.param).toBe("cachedContent");
  });
});

it("@google/genai embedContent on the OpenAI-shape model: OpenAI embeddings, vectors back in Gemini's form", async () => {
  const embedded = await ai.models.embedContent({ model: "gpt-test", contents: ["one", "two"] });
  expect(embedded.embeddings).toHaveLength(2);
  expect(embedded.embeddings![0]!.values!.length).toBeGreaterThan(0);
  const sent = stack.simulator.stats.last!;
  expect(sent.path).toBe("/v1/embeddings");
  expect((sent.body as { input: string[] }).input).toEqual(["one", "two"]);
});

describe("other clients on the Gemini-shape model", () => {
  it("the openai SDK: chat completion, stream with usage, and tool calls over two steps", async () => {
    const openai = new OpenAI({ baseURL: `${stack.proxy.url}/v1`, apiKey: key, maxRetries: 0 });
    const completion = await openai.chat.completions.create({ model: "gemini-test", messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Hello" }], max_completion_tokens: 200 });
    expect(completion.choices[0]!.message.content!.length).toBeGreaterThan(0);
    expect(completion.choices[0]!.finish_reason).toBe("stop");
    expect(completion.usage!.prompt_tokens).toBeGreaterThan(0);
    const sent = stack.simulator.stats.last!;
    expect(sent.path).toBe("/v1beta/models/gemini-2.5-flash:generateContent");
    expect(sent.body).toMatchObject({ systemInstruction: { parts: [{ text: "Be brief." }] }, generationConfig: { maxOutputTokens: 200 } });

    let streamed = "";
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of await openai.chat.completions.create({ model: "gemini-test", messages: [{ role: "user", content: "Tell me a story" }], stream: true, stream_options: { include_usage: true } })) {
      streamed += chunk.choices[0]?.delta.content ?? "";
      usage = chunk.usage ?? usage;
    }
    expect(streamed.length).toBeGreaterThan(0);
    expect(usage!.completion_tokens).toBeGreaterThan(0);

    const tools: OpenAI.ChatCompletionTool[] = [{ type: "function", function: { name: "get_weather", parameters: weather } }];
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: DIRECTIVE }];
    const first = await openai.chat.completions.create({ model: "gemini3-test", messages, tools });
    const call = first.choices[0]!.message.tool_calls![0]! as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(first.choices[0]!.finish_reason).toBe("tool_calls");
    expect(JSON.parse(call.function.arguments)).toEqual(ARGS);
    messages.push(first.choices[0]!.message, { role: "tool", tool_call_id: call.id, content: JSON.stringify({ temperature: 21 }) });
    const second = await openai.chat.completions.create({ model: "gemini3-test", messages, tools });
    expect(second.choices[0]!.message.content!.length).toBeGreaterThan(0);
    const history = (stack.simulator.stats.last!.body as { contents: Array<{ role: string; parts: Array<Record<string, unknown>> }> }).contents;
    expect(history.map((content) => content.role)).toEqual(["user", "model", "user"]);
    expect(history[2]!.parts[0]).toMatchObject({ functionResponse: { name: "get_weather", response: { temperature: 21 } } });
  });

  it("the openai SDK's Responses API: a response and a stream", async () => {
    const openai = new OpenAI({ baseURL: `${stack.proxy.url}/v1`, apiKey: key, maxRetries: 0 });
    const response = await openai.responses.create({ model: "gemini-test", instructions: "Be brief.", input: "Hello", max_output_tokens: 300 });
    expect(response.output_text.length).toBeGreaterThan(0);
    expect(response.status).toBe("completed");
    expect(stack.simulator.stats.last!.body).toMatchObject({ systemInstruction: { parts: [{ text: "Be brief." }] }, generationConfig: { maxOutputTokens: 300 } });
    let text = "";
    let completed = false;
    for await (const event of await openai.responses.create({ model: "gemini-test", input: "Tell me a story", stream: true })) {
      if (event.type === "response.output_text.delta") text += event.delta;
      if (event.type === "response.completed") completed = event.response.usage!.output_tokens > 0;
    }
    expect(text.length).toBeGreaterThan(0);
    expect(completed).toBe(true);
  });

  it("the anthropic SDK: a message, a stream, and tool use over two steps", async () => {
    const anthropic = new Anthropic({ baseURL: stack.proxy.url, apiKey: key, maxRetries: 0 });
    const message = await anthropic.messages.create({ model: "gemini-test", max_tokens: 300, system: "Be brief.", messages: [{ role: "user", content: "Hello" }] });
    expect(message.content[0]).toMatchObject({ type: "text" });
    expect(message.stop_reason).toBe("end_turn");
    expect(message.usage.output_tokens).toBeGreaterThan(0);

    const stream = anthropic.messages.stream({ model: "gemini-test", max_tokens: 300, messages: [{ role: "user", content: "Tell me a story" }] });
    const final = await stream.finalMessage();
    expect((final.content[0] as Anthropic.TextBlock).text.length).toBeGreaterThan(0);

    const tools: Anthropic.Tool[] = [{ name: "get_weather", input_schema: weather as Anthropic.Tool.InputSchema }];
    const first = await anthropic.messages.create({ model: "gemini3-test", max_tokens: 300, tools, messages: [{ role: "user", content: DIRECTIVE }] });
    expect(first.stop_reason).toBe("tool_use");
    const use = first.content.find((block) => block.type === "tool_use") as Anthropic.ToolUseBlock;
    expect(use.input).toEqual(ARGS);
    const second = await anthropic.messages.create({
      model: "gemini3-test",
      max_tokens: 300,
      tools,
      messages: [
        { role: "user", content: DIRECTIVE },
        { role: "assistant", content: first.content },
        { role: "user", content: [{ type: "tool_result", tool_use_id: use.id, content: "21 degrees" }] },
      ],
    });
    expect(second.stop_reason).toBe("end_turn");
  });

  it("thinking both ways: Anthropic's budget as Gemini's thinkingBudget (thoughts shown), Gemini's level as the Anthropic model's effort", async () => {
    const anthropic = new Anthropic({ baseURL: stack.proxy.url, apiKey: key, maxRetries: 0 });
    await anthropic.messages.create({ model: "gemini-test", max_tokens: 4000, thinking: { type: "enabled", budget_tokens: 2048 }, messages: [{ role: "user", content: "Think, then answer" }] });
    expect((stack.simulator.stats.last!.body as { generationConfig: unknown }).generationConfig).toMatchObject({ maxOutputTokens: 4000, thinkingConfig: { thinkingBudget: 2048, includeThoughts: true } });
    await ai.models.generateContent({ model: "claude-test", contents: "Think, then answer", config: { maxOutputTokens: 4000, thinkingConfig: { thinkingLevel: "HIGH" as never, includeThoughts: true } } });
    const sent = stack.simulator.stats.last!.body as { thinking?: unknown; output_config?: { effort?: string } };
    expect(sent.thinking ?? sent.output_config?.effort).toBeDefined();
    expect(JSON.stringify(sent)).toContain("high");
  });

  it("the AI SDK (openai and anthropic providers): text, a stream, a tool over two steps", async () => {
    const openaiProvider = createOpenAI({ baseURL: `${stack.proxy.url}/v1`, apiKey: key });
    const anthropicProvider = createAnthropic({ baseURL: `${stack.proxy.url}/v1`, apiKey: key });
    const text = await generateText({ model: openaiProvider.chat("gemini-test"), prompt: "Hello" });
    expect(text.text.length).toBeGreaterThan(0);
    const streamed = streamText({ model: anthropicProvider("gemini-test"), prompt: "Tell me a story" });
    let out = "";
    for await (const delta of streamed.textStream) out += delta;
    expect(out.length).toBeGreaterThan(0);
    let called: unknown = null;
    const withTool = await generateText({
      model: anthropicProvider("gemini3-test"),
      prompt: DIRECTIVE,
      tools: { get_weather: tool({ inputSchema: jsonSchema<{ city: string }>(weather), execute: async (input) => ((called = input), { temperature: 21 }) }) },
      stopWhen: ({ steps }) => steps.length >= 2,
    });
    expect(called).toEqual(ARGS);
    expect(withTool.steps).toHaveLength(2);
    expect(withTool.text.length).toBeGreaterThan(0);
  });
});
