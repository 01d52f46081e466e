import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import Anthropic from "@anthropic-ai/sdk";
import { expectedText, MODELS, reported, startCompatStack, type CompatStack } from "./compat-stack.ts";

/**
 * The official `@anthropic-ai/sdk`, unmodified, on an Anthropic-shape model (`claude-test`, relayed)
 * and an OpenAI-shape model (`gpt-test`, translated): generate, stream, a tool call over two steps,
 * and `messages.countTokens`.
 */
let compat: CompatStack;
let anthropic: Anthropic;

beforeAll(async () => {
  compat = await startCompatStack();
  anthropic = compat.anthropic;
});
afterAll(async () => compat?.close());
beforeEach(() => compat.resetUpstream());

const weatherTool: Anthropic.Tool = {
  name: "get_weather",
  description: "The weather in a city",
  input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};

/** Anthropic's input_tokens leaves cache reads and writes out; the simulator's count has them in. */
const totalInput = (usage: Anthropic.Usage | Anthropic.MessageDeltaUsage) =>
  (usage.input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0);

describe.each(MODELS)("@anthropic-ai/sdk on $model ($shape-shape upstream)", ({ model }) => {
  it("messages: generate", async () => {
    const prompt = `Hello from the Anthropic SDK to ${model}`;
    const message = await anthropic.messages.create({ model, max_tokens: 256, system: "Be brief.", messages: [{ role: "user", content: prompt }] });
    expect(message).toMatchObject({ type: "message", role: "assistant", stop_reason: "end_turn", stop_sequence: null });
    expect(message.content).toEqual([{ type: "text", text: expectedText(prompt) }]);
    const usage = reported(compat.lastUpstream());
    expect(totalInput(message.usage)).toBe(usage.input);
    expect(message.usage.output_tokens).toBe(usage.output);
  });

  it("messages: stream, assembled by the SDK's MessageStream", async () => {
    const prompt = `Stream from the Anthropic SDK to ${model}`;
    const stream = anthropic.messages.stream({ model, max_tokens: 256, messages: [{ role: "user", content: [{ type: "text", text: prompt }] }] });
    const eventTypes: string[] = [];
    stream.on("streamEvent", (event) => eventTypes.push(event.type));
    let streamedText = "";
    stream.on("text", (delta) => (streamedText += delta));
    const final = await stream.finalMessage();
    expect(eventTypes[0]).toBe("message_start");
    expect(eventTypes.at(-1)).toBe("message_stop");
    expect(eventTypes.at(-2)).toBe("message_delta");
    expect(streamedText).toBe(expectedText(prompt));
    expect(final.content).toEqual([{ type: "text", text: expectedText(prompt) }]);
    expect(final.stop_reason).toBe("end_turn");
    const usage = reported(compat.lastUpstream());
    expect(totalInput(final.usage)).toBe(usage.input);
    expect(final.usage.output_tokens).toBe(usage.output);
  });

  it("messages: a tool_use, its tool_result, then the answer", async () => {
    const prompt = `What is the weather in Paris? (${model}, messages)`;
    const messages: Anthropic.MessageParam[] = [{ role: "user", content: prompt }];
    const first = await anthropic.messages.create({ model, max_tokens: 256, tools: [weatherTool], tool_choice: { type: "auto" }, messages });
    expect(first.stop_reason).toBe("tool_use");
    const calls = first.content.filter((block) => block.type === "tool_use");
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ type: "tool_use", name: "get_weather", input: { city: "test" } });
    expect(calls[0]!.id).toMatch(/^\S+$/);
    const firstUsage = reported(compat.lastUpstream());
    expect(totalInput(first.usage)).toBe(firstUsage.input);
    expect(first.usage.output_tokens).toBe(firstUsage.output);

    messages.push({ role: "assistant", content: first.content }, { role: "user", content: [{ type: "tool_result", tool_use_id: calls[0]!.id, content: "Sunny, 21C" }] });
    const second = await anthropic.messages.create({ model, max_tokens: 256, tools: [weatherTool], messages });
    expect(second.stop_reason).toBe("end_turn");
    expect(second.content).toEqual([{ type: "text", text: expectedText(prompt) }]);
    const secondUsage = reported(compat.lastUpstream());
    expect(totalInput(second.usage)).toBe(secondUsage.input);
    expect(second.usage.output_tokens).toBe(secondUsage.output);
  });

  it("messages: a streamed tool_use (input_json_delta), then the streamed answer", async () => {
    const prompt = `Weather in Lyon, streamed? (${model})`;
    const messages: Anthropic.MessageParam[] = [{ role: "user", content: prompt }];
    const jsonDeltas: string[] = [];
    const firstStream = anthropic.messages.stream({ model, max_tokens: 256, tools: [weatherTool], messages });
    firstStream.on("inputJson", (delta) => jsonDeltas.push(delta));
    const first = await firstStream.finalMessage();
    expect(first.stop_reason).toBe("tool_use");
    const call = first.content.find((block) => block.type === "tool_use")!;
    expect(call).toMatchObject({ name: "get_weather", input: { city: "test" } });
    expect(JSON.parse(jsonDeltas.join(""))).toEqual({ city: "test" });
    messages.push({ role: "assistant", content: first.content }, { role: "user", content: [{ type: "tool_result", tool_use_id: call.id, content: "Rain" }] });
    const second = await anthropic.messages.stream({ model, max_tokens: 256, tools: [weatherTool], messages }).finalMessage();
    expect(second.stop_reason).toBe("end_turn");
    expect(second.content).toEqual([{ type: "text", text: expectedText(prompt) }]);
  });

  it("messages.countTokens: input_tokens for the request, not billed", async () => {
    const short = await anthropic.messages.countTokens({ model, messages: [{ role: "user", content: "Hi" }] }).withResponse();
    expect(short.response.status).toBe(200);
    expect(Object.keys(short.data)).toEqual(["input_tokens"]);
    expect(short.data.input_tokens).toBeGreaterThan(0);
    const long = await anthropic.messages.countTokens({
      model,
      system: "You are a careful assistant who answers questions about the weather.",
      tools: [weatherTool],
      messages: [{ role: "user", content: "What is the weather in Paris today, and should I bring an umbrella for the evening walk along the river?" }],
    });
    expect(long.input_tokens).toBeGreaterThan(short.data.input_tokens);
    const requestId = short.response.headers.get("x-request-id");
    expect(requestId).toMatch(/^req_/);
    expect(await compat.stack.billingEvents(requestId!)).toEqual([]);
  });
});

describe("@anthropic-ai/sdk countTokens, by shape", () => {
  it("Anthropic-shape model: forwarded to the upstream's count_tokens, its count returned as is", async () => {
    const counted = await anthropic.messages.countTokens({ model: "claude-test", messages: [{ role: "user", content: "Count these words please" }] });
    const upstream = compat.lastUpstream();
    expect(upstream.path).toBe("/v1/messages/count_tokens");
    expect(upstream.model).toMatch(/^claude-upstream-[ab]$/);
    expect(upstream.status).toBe(200);
    expect(upstream.body).toMatchObject({ model: upstream.model, messages: [{ role: "user", content: "Count these words please" }] });
    expect(counted.input_tokens).toBeGreaterThan(0);
  });

  it("OpenAI-shape model: counted locally, no upstream call", async () => {
    const counted = await anthropic.messages.countTokens({ model: "gpt-test", messages: [{ role: "user", content: "Count these words please" }] });
    expect(counted.input_tokens).toBeGreaterThan(0);
    expect(compat.upstream()).toHaveLength(0);
  });

  it("a body that would be a 400 on /v1/messages is the same 400 here", async () => {
    for (const model of ["claude-test", "gpt-test"]) {
      const error = await anthropic.messages.countTokens({ model, messages: "nope" as unknown as Anthropic.MessageParam[] }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(Anthropic.BadRequestError);
      expect(error).toMatchObject({ status: 400, error: { type: "error", error: { type: "invalid_request_error", param: "messages" } } });
    }
  });
});
