import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { expectResponsesEventOrder, expectedText, MODELS, reported, startCompatStack, type CompatStack } from "./compat-stack.ts";

/**
 * The official `openai` SDK, unmodified, on an OpenAI-shape model (`gpt-test`, relayed) and an
 * Anthropic-shape model (`claude-test`, translated): chat and Responses, generate, stream, a tool
 * call over two steps; embeddings where the shape has them.
 */
let compat: CompatStack;
let openai: OpenAI;

beforeAll(async () => {
  compat = await startCompatStack();
  openai = compat.openai;
});
afterAll(async () => compat?.close());
beforeEach(() => compat.resetUpstream());

const weatherTool: OpenAI.Chat.Completions.ChatCompletionTool = {
  type: "function",
  function: {
    name: "get_weather",
    description: "The weather in a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false },
  },
};
const weatherResponsesTool: OpenAI.Responses.FunctionTool = {
  type: "function",
  name: "get_weather",
  description: "The weather in a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false },
  strict: false,
};

describe.each(MODELS)("openai SDK on $model ($shape-shape upstream)", ({ model }) => {
  it("chat completions: generate", async () => {
    const prompt = `Hello from the openai SDK to ${model}`;
    const completion = await openai.chat.completions.create({ model, messages: [{ role: "system", content: "Be brief." }, { role: "user", content: prompt }] });
    expect(completion.object).toBe("chat.completion");
    expect(completion.choices).toHaveLength(1);
    expect(completion.choices[0]!.message).toMatchObject({ role: "assistant", content: expectedText(prompt) });
    expect(completion.choices[0]!.finish_reason).toBe("stop");
    const usage = reported(compat.lastUpstream());
    expect(completion.usage).toMatchObject({ prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output });
  });

  it("chat completions: stream with include_usage, assembled by the SDK", async () => {
    const prompt = `Stream from the openai SDK to ${model}`;
    const stream = openai.chat.completions.stream({ model, messages: [{ role: "user", content: prompt }], stream_options: { include_usage: true } });
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    stream.on("chunk", (chunk) => chunks.push(chunk));
    const final = await stream.finalChatCompletion();
    expect(final.choices[0]!.message.content).toBe(expectedText(prompt));
    expect(final.choices[0]!.finish_reason).toBe("stop");
    expect(chunks.every((chunk) => chunk.object === "chat.completion.chunk")).toBe(true);
    const usageChunks = chunks.filter((chunk) => chunk.usage);
    expect(usageChunks).toHaveLength(1);
    const usage = reported(compat.lastUpstream());
    expect(usageChunks[0]!.usage).toMatchObject({ prompt_tokens: usage.input, completion_tokens: usage.output });
  });

  it("chat completions: a tool call, its result, then the answer", async () => {
    const prompt = `What is the weather in Paris? (${model}, chat)`;
    const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [{ role: "user", content: prompt }];
    const first = await openai.chat.completions.create({ model, messages, tools: [weatherTool], tool_choice: "auto", parallel_tool_calls: false });
    expect(first.choices[0]!.finish_reason).toBe("tool_calls");
    const message = first.choices[0]!.message;
    expect(message.tool_calls).toHaveLength(1);
    const call = message.tool_calls![0]!;
    expect(call.type).toBe("function");
    if (call.type !== "function") throw new Error("not a function call");
    expect(call.function.name).toBe("get_weather");
    expect(JSON.parse(call.function.arguments)).toEqual({ city: "test" });
    const firstUsage = reported(compat.lastUpstream());
    expect(first.usage).toMatchObject({ prompt_tokens: firstUsage.input, completion_tokens: firstUsage.output });

    messages.push(message, { role: "tool", tool_call_id: call.id, content: "Sunny, 21C" });
    const second = await openai.chat.completions.create({ model, messages, tools: [weatherTool] });
    expect(second.choices[0]!.finish_reason).toBe("stop");
    expect(second.choices[0]!.message.content).toBe(expectedText(prompt));
    const secondUsage = reported(compat.lastUpstream());
    expect(second.usage).toMatchObject({ prompt_tokens: secondUsage.input, completion_tokens: secondUsage.output });
  });

  it("chat completions: a streamed tool call, then the streamed answer", async () => {
    const prompt = `Weather in Lyon, streamed? (${model})`;
    const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [{ role: "user", content: prompt }];
    const first = await openai.chat.completions.stream({ model, messages, tools: [weatherTool] }).finalChatCompletion();
    expect(first.choices[0]!.finish_reason).toBe("tool_calls");
    const call = first.choices[0]!.message.tool_calls![0]!;
    if (call.type !== "function") throw new Error("not a function call");
    expect(call.function.name).toBe("get_weather");
    expect(JSON.parse(call.function.arguments)).toEqual({ city: "test" });
    messages.push(first.choices[0]!.message as OpenAI.Chat.Completions.ChatCompletionAssistantMessageParam, { role: "tool", tool_call_id: call.id, content: "Rain" });
    const second = await openai.chat.completions.stream({ model, messages, tools: [weatherTool] }).finalChatCompletion();
    expect(second.choices[0]!.finish_reason).toBe("stop");
    expect(second.choices[0]!.message.content).toBe(expectedText(prompt));
  });

  it("responses: generate", async () => {
    const prompt = `Hello Responses on ${model}`;
    const response = await openai.responses.create({ model, instructions: "Be brief.", input: prompt });
    expect(response.object).toBe("response");
    expect(response.status).toBe("completed");
    expect(response.output_text).toBe(expectedText(prompt));
    const usage = reported(compat.lastUpstream());
    expect(response.usage).toMatchObject({ input_tokens: usage.input, output_tokens: usage.output, total_tokens: usage.input + usage.output });
  });

  it("responses: stream, well-formed events assembled by the SDK", async () => {
    const prompt = `Stream Responses on ${model}`;
    const stream = openai.responses.stream({ model, input: [{ role: "user", content: prompt }] });
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    const final = await stream.finalResponse();
    expectResponsesEventOrder(events);
    expect(final.status).toBe("completed");
    expect(final.output_text).toBe(expectedText(prompt));
    const deltas = events.filter((event) => event.type === "response.output_text.delta").map((event) => event.delta);
    expect(deltas.join("")).toBe(expectedText(prompt));
    const usage = reported(compat.lastUpstream());
    expect(final.usage).toMatchObject({ input_tokens: usage.input, output_tokens: usage.output });
  });

  it("responses: a function call, its output, then the answer", async () => {
    const prompt = `Weather in Oslo via Responses on ${model}?`;
    const input: OpenAI.Responses.ResponseInput = [{ role: "user", content: prompt }];
    const first = await openai.responses.create({ model, input, tools: [weatherResponsesTool], store: false });
    const call = first.output.find((item): item is OpenAI.Responses.ResponseFunctionToolCall => item.type === "function_call");
    expect(call).toMatchObject({ type: "function_call", name: "get_weather" });
    expect(JSON.parse(call!.arguments)).toEqual({ city: "test" });
    expect(first.output_text).toBe("");
    const firstUsage = reported(compat.lastUpstream());
    expect(first.usage).toMatchObject({ input_tokens: firstUsage.input, output_tokens: firstUsage.output });

    input.push(...(first.output as OpenAI.Responses.ResponseInputItem[]), { type: "function_call_output", call_id: call!.call_id, output: "Snow, -3C" });
    const second = await openai.responses.create({ model, input, tools: [weatherResponsesTool], store: false });
    expect(second.status).toBe("completed");
    expect(second.output_text).toBe(expectedText(prompt));
    const secondUsage = reported(compat.lastUpstream());
    expect(second.usage).toMatchObject({ input_tokens: secondUsage.input, output_tokens: secondUsage.output });
  });

  it("responses: a streamed function call, then the streamed answer", async () => {
    const prompt = `Weather in Rome via streamed Responses on ${model}?`;
    const input: OpenAI.Responses.ResponseInput = [{ role: "user", content: prompt }];
    const firstStream = openai.responses.stream({ model, input, tools: [weatherResponsesTool], store: false });
    const firstEvents: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of firstStream) firstEvents.push(event);
    expectResponsesEventOrder(firstEvents);
    const first: OpenAI.Responses.Response = await firstStream.finalResponse();
    const call = first.output.find((item): item is OpenAI.Responses.ResponseFunctionToolCall => item.type === "function_call");
    expect(call).toMatchObject({ name: "get_weather" });
    expect(JSON.parse(call!.arguments)).toEqual({ city: "test" });
    input.push(...(first.output as OpenAI.Responses.ResponseInputItem[]), { type: "function_call_output", call_id: call!.call_id, output: "Sunny" });
    const second = await openai.responses.stream({ model, input, tools: [weatherResponsesTool], store: false }).finalResponse();
    expect(second.output_text).toBe(expectedText(prompt));
  });
});

describe("openai SDK embeddings", () => {
  it("on the OpenAI-shape model: vectors, and usage as the upstream reported it", async () => {
    const { data: result, response } = await openai.embeddings.create({ model: "gpt-test", input: ["first text", "second text"] }).withResponse();
    expect(result.object).toBe("list");
    expect(result.data).toHaveLength(2);
    result.data.forEach((item, index) => {
      expect(item).toMatchObject({ object: "embedding", index });
      expect(item.embedding.length).toBeGreaterThan(0);
      expect(item.embedding.every((value) => typeof value === "number" && Number.isFinite(value))).toBe(true);
    });
    const upstream = compat.lastUpstream();
    expect(upstream.path).toBe("/v1/embeddings");
    expect(upstream.usage?.input_tokens).toBeGreaterThan(0);
    expect(result.usage).toMatchObject({ prompt_tokens: upstream.usage!.input_tokens, total_tokens: upstream.usage!.input_tokens });
    const events = await compat.stack.billingEvents(response.headers.get("x-request-id")!);
    expect(events).toHaveLength(1);
    expect(events[0]!.usage).toMatchObject({ inputTokens: upstream.usage!.input_tokens, outputTokens: 0 });
  });

  it("base64 encoding (the SDK's default wire format) decodes to the same vector", async () => {
    const floats = await openai.embeddings.create({ model: "gpt-test", input: "same text", encoding_format: "float" });
    const decoded = await openai.embeddings.create({ model: "gpt-test", input: "same text" });
    expect(decoded.data[0]!.embedding).toEqual(floats.data[0]!.embedding);
  });

  it("on the Anthropic-shape model: 400 naming model", async () => {
    const error = await openai.embeddings.create({ model: "claude-test", input: "hello" }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error).toMatchObject({ status: 400, param: "model", type: "invalid_request_error" });
    expect(compat.upstream()).toHaveLength(0);
  });
});
