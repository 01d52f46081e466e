import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { startStack, type Stack } from "./stack.ts";

/**
 * Cross-shape calls through the official SDKs against the simulator: a model served by an
 * OpenAI-shape upstream called through /v1/messages (claude-on-openai), an Anthropic-shape model
 * through /v1/chat/completions and /v1/responses (gpt-on-anthropic), and /v1/responses on an
 * OpenAI upstream without the Responses API (gpt-chat-only).
 */
let stack: Stack;
let openai: OpenAI;
let anthropic: Anthropic;

beforeAll(async () => {
  stack = await startStack();
  const { key } = await stack.mintKey({ serverOption: "cross-shape" });
  openai = new OpenAI({ baseURL: `${stack.proxy.url}/v1`, apiKey: key, maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: stack.proxy.url, apiKey: key, maxRetries: 0 });
});
afterAll(async () => stack?.close());
beforeEach(() => {
  stack.simulator.faults.clear();
  stack.simulator.stats.clear();
});

const upstream = () => stack.simulator.stats.requests.at(-1)!;
const upstreamBody = () => upstream().body as Record<string, unknown>;

/** 1x1 transparent PNG. */
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

const weatherSchema = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };

async function oneBillingEvent(requestId: string | null) {
  expect(requestId).toMatch(/^req_/);
  // A stream billed by estimate is billed after its client got its last event (the output's exact
  // count runs on the token counter's thread): the event is waited for.
  await expect.poll(async () => (await stack.billingEvents(requestId!)).length, { timeout: 10_000 }).toBeGreaterThan(0);
  const events = await stack.billingEvents(requestId!);
  expect(events).toHaveLength(1);
  return events[0]!;
}

/** The third word the simulator generates for `seed` (to use as a stop sequence). */
async function thirdWord(seed: string): Promise<string> {
  const completion = await openai.chat.completions.create({ model: "gpt-on-anthropic", messages: [{ role: "user", content: seed }] });
  return completion.choices[0]!.message.content!.split(" ")[2]!;
}

describe("/v1/messages served by an OpenAI-shape upstream", () => {
  it("system, multi-turn text: the upstream gets chat completions; usage and billing are the upstream's", async () => {
    const { data: message, response } = await anthropic.messages
      .create({
        model: "claude-on-openai",
        max_tokens: 100,
        system: "Be brief.",
        messages: [
          { role: "user", content: "Hello" },
          { role: "assistant", content: [{ type: "text", text: "Hi there" }] },
          { role: "user", content: [{ type: "text", text: "How are you?" }] },
        ],
        // temperature is not in this SDK release's types; the Messages API still takes it.
        temperature: 0.5,
        stop_sequences: ["zzz"],
        metadata: { user_id: "user-1" },
      } as Anthropic.MessageCreateParamsNonStreaming)
      .withResponse();
    expect(message).toMatchObject({ type: "message", role: "assistant", stop_reason: "end_turn", stop_sequence: null });
    expect(message.content[0]).toMatchObject({ type: "text" });
    expect(upstream().path).toBe("/v1/chat/completions");
    expect(upstreamBody()).toEqual({
      model: "claude-via-openai-a",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Hello" },
        { role: "assistant", content: "Hi there" },
        { role: "user", content: [{ type: "text", text: "How are you?" }] },
      ],
      max_completion_tokens: 100,
      temperature: 0.5,
      stop: ["zzz"],
      user: "user-1",
    });
    const reported = upstream().usage!;
    expect(message.usage.input_tokens + (message.usage.cache_read_input_tokens ?? 0)).toBe(reported.input_tokens);
    expect(message.usage.output_tokens).toBe(reported.output_tokens);
    const event = await oneBillingEvent(response.headers.get("x-request-id"));
    expect(event).toMatchObject({ endpoint: "messages", upstream: "sim-openai-a", upstreamModel: "claude-via-openai-a", status: "ok", estimated: false });
    expect(event.usage).toMatchObject({ inputTokens: reported.input_tokens, outputTokens: reported.output_tokens });
  });

  it("images by base64 and by URL become image_url parts", async () => {
    await anthropic.messages.create({
      model: "claude-on-openai",
      max_tokens: 50,
      messages: [
        {
          role: "user",
          content: [
            { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
            { type: "image", source: { type: "url", url: "https://example.com/cat.png" } },
            { type: "text", text: "What is this?" },
          ],
        },
      ],
    });
    expect((upstreamBody().messages as unknown[])[0]).toEqual({
      role: "user",
      content: [
        { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
        { type: "image_url", image_url: { url: "https://example.com/cat.png" } },
        { type: "text", text: "What is this?" },
      ],
    });
  });

  it("a tool call round trip: tool_use, then tool_result, then text", async () => {
    const tools: Anthropic.Tool[] = [{ name: "get_weather", description: "Weather by city", input_schema: weatherSchema as Anthropic.Tool.InputSchema }];
    const first = await anthropic.messages.create({
      model: "claude-on-openai",
      max_tokens: 100,
      tools,
      tool_choice: { type: "auto", disable_parallel_tool_use: true },
      messages: [{ role: "user", content: "Weather in Paris?" }],
    });
    expect(first.stop_reason).toBe("tool_use");
    const call = first.content.find((block) => block.type === "tool_use")!;
    expect(call).toMatchObject({ type: "tool_use", name: "get_weather", input: { city: "test" } });
    expect(upstreamBody()).toMatchObject({
      tools: [{ type: "function", function: { name: "get_weather", description: "Weather by city", parameters: weatherSchema } }],
      tool_choice: "auto",
      parallel_tool_calls: false,
    });

    const second = await anthropic.messages.create({
      model: "claude-on-openai",
      max_tokens: 100,
      tools,
      messages: [
        { role: "user", content: "Weather in Paris?" },
        { role: "assistant", content: first.content },
        { role: "user", content: [{ type: "tool_result", tool_use_id: call.id, content: "Sunny, 21C" }] },
      ],
    });
    expect(second.stop_reason).toBe("end_turn");
    expect(second.content[0]).toMatchObject({ type: "text" });
    const sent = upstreamBody().messages as Record<string, unknown>[];
    expect(sent.slice(1)).toEqual([
      { role: "assistant", content: null, tool_calls: [{ id: call.id, type: "function", function: { name: "get_weather", arguments: JSON.stringify({ city: "test" }) } }] },
      { role: "tool", tool_call_id: call.id, content: "Sunny, 21C" },
    ]);
  });

  it("max_tokens truncation is stop_reason max_tokens; cached tokens are cache reads", async () => {
    const truncated = await anthropic.messages.create({ model: "claude-on-openai", max_tokens: 3, messages: [{ role: "user", content: "Tell me a story" }] });
    expect(truncated.stop_reason).toBe("max_tokens");
    expect(truncated.usage.output_tokens).toBe(3);

    const cached = await anthropic.messages.create({ model: "claude-on-openai", max_tokens: 20, messages: [{ role: "user", content: "#sim:cached=10 a long shared prefix" }] });
    const reported = upstream().usage!;
    expect(cached.usage.cache_read_input_tokens).toBe(10);
    expect(cached.usage.input_tokens).toBe(reported.input_tokens - 10);
  });

  it("streaming: the SDK's helper assembles text; message_start once, input_tokens also in message_delta", async () => {
    const stream = anthropic.messages.stream({ model: "claude-on-openai", max_tokens: 100, messages: [{ role: "user", content: "Stream please" }] });
    const events: Anthropic.MessageStreamEvent[] = [];
    stream.on("streamEvent", (event) => events.push(event));
    const final = await stream.finalMessage();
    const reported = upstream().usage!;
    expect(final.content[0]).toMatchObject({ type: "text" });
    expect((final.content[0] as Anthropic.TextBlock).text.split(" ")).toHaveLength(reported.output_tokens);
    expect(final.stop_reason).toBe("end_turn");
    expect(final.usage.input_tokens).toBe(reported.input_tokens);
    expect(final.usage.output_tokens).toBe(reported.output_tokens);
    expect(events.filter((event) => event.type === "message_start")).toHaveLength(1);
    expect(events.map((event) => event.type)).toEqual([
      "message_start",
      "content_block_start",
      ...Array(reported.output_tokens).fill("content_block_delta"),
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    const delta = events.find((event) => event.type === "message_delta") as Anthropic.MessageDeltaEvent;
    expect(delta.usage.input_tokens).toBe(reported.input_tokens);
    expect(upstreamBody().stream_options).toEqual({ include_usage: true });
  });

  it("streaming a tool call: input_json_delta pieces assemble into the tool input", async () => {
    const { data: stream, response } = await anthropic.messages
      .create({
        model: "claude-on-openai",
        max_tokens: 100,
        stream: true,
        tools: [{ name: "get_weather", input_schema: weatherSchema as Anthropic.Tool.InputSchema }],
        messages: [{ role: "user", content: "Weather?" }],
      })
      .withResponse();
    const events: Anthropic.RawMessageStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    const start = events.find((event) => event.type === "content_block_start") as Anthropic.RawContentBlockStartEvent;
    expect(start).toMatchObject({ index: 0, content_block: { type: "tool_use", name: "get_weather" } });
    const json = events
      .filter((event): event is Anthropic.RawContentBlockDeltaEvent => event.type === "content_block_delta")
      .map((event) => (event.delta as Anthropic.InputJSONDelta).partial_json)
      .join("");
    expect(JSON.parse(json)).toEqual({ city: "test" });
    expect(events.find((event) => event.type === "message_delta")).toMatchObject({ delta: { stop_reason: "tool_use" } });
    const event = await oneBillingEvent(response.headers.get("x-request-id"));
    expect(event.usage.outputTokens).toBe(upstream().usage!.output_tokens);

    const final = await anthropic.messages
      .stream({ model: "claude-on-openai", max_tokens: 100, tools: [{ name: "get_weather", input_schema: weatherSchema as Anthropic.Tool.InputSchema }], messages: [{ role: "user", content: "Weather?" }] })
      .finalMessage();
    expect(final.content).toEqual([expect.objectContaining({ type: "tool_use", name: "get_weather", input: { city: "test" } })]);
  });

  it("a mid-stream cut ends with event: error; the SDK throws; no second upstream call; one billing event", async () => {
    const helper = await anthropic.messages
      .stream({ model: "claude-on-openai", max_tokens: 100, messages: [{ role: "user", content: "#sim:cut_after=3 go" }] })
      .finalMessage()
      .catch((e: unknown) => e);
    expect(helper).toBeInstanceOf(Anthropic.APIError);
    expect((helper as Error).message).toMatch(/mid-stream|before it was complete/);

    const { data: stream, response } = await anthropic.messages
      .create({ model: "claude-on-openai", max_tokens: 100, stream: true, messages: [{ role: "user", content: "#sim:cut_after=3 again" }] })
      .withResponse();
    const types: string[] = [];
    const error = await (async () => {
      for await (const event of stream) types.push(event.type);
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect(types.slice(0, 2)).toEqual(["message_start", "content_block_start"]);
    expect(types).not.toContain("message_stop");
    expect(stack.simulator.stats.requests).toHaveLength(2);
    const event = await oneBillingEvent(response.headers.get("x-request-id"));
    expect(event).toMatchObject({ status: "error", estimated: true });
    expect(event.usage.outputTokens).toBeGreaterThan(0);
  });

  it("the first translated event reaches the client while the upstream is still sending", async () => {
    const stream = await anthropic.messages.create({
      model: "claude-on-openai",
      max_tokens: 100,
      stream: true,
      messages: [{ role: "user", content: "#sim:chunks=6 #sim:chunk_delay_ms=150 slow please" }],
    });
    let sentWhenFirstTextArrived: number | null = null;
    for await (const event of stream) {
      if (sentWhenFirstTextArrived === null && event.type === "content_block_delta") sentWhenFirstTextArrived = upstream().chunksSent;
    }
    expect(sentWhenFirstTextArrived).not.toBeNull();
    expect(sentWhenFirstTextArrived!).toBeLessThan(6);
    expect(upstream().chunksSent).toBe(6);
  });

  it("fails over across targets before the first byte, as same-shape calls do", async () => {
    stack.simulator.faults.push({ match: { model: "claude-via-openai-a" }, times: 1, behaviour: { failStatus: 503 } });
    const final = await anthropic.messages.stream({ model: "claude-on-openai", max_tokens: 50, messages: [{ role: "user", content: "hi" }] }).finalMessage();
    expect(final.content[0]).toMatchObject({ type: "text" });
    expect(stack.simulator.stats.requests.map((record) => [record.model, record.outcome])).toEqual([["claude-via-openai-a", "failed"], ["claude-via-openai-b", "ok"]]);
  });

  it.each([
    ["top_k", { top_k: 5 }, ["top_k"]],
    ["a thinking block in the history", { messages: [{ role: "user", content: "hi" }, { role: "assistant", content: [{ type: "thinking", thinking: "hm", signature: "sig" }, { type: "text", text: "hello" }] }, { role: "user", content: "again" }] }, ["messages[1].content[0]"]],
  ])("drops %s (it only tunes the answer), listed in x-gateway-dropped-params", async (_name, extra, paths) => {
    const { data: message, response } = await anthropic.messages
      .create({ model: "claude-on-openai", max_tokens: 50, messages: [{ role: "user", content: "hi" }], ...extra } as Anthropic.MessageCreateParamsNonStreaming)
      .withResponse();
    expect(message.content[0]).toMatchObject({ type: "text" });
    expect(response.headers.get("x-gateway-dropped-params")).toBe(paths.join(", "));
    expect(JSON.stringify(upstreamBody())).not.toMatch(/top_k|thinking/);
  });

  it.each([
    ["a document block", { messages: [{ role: "user", content: [{ type: "document", source: { type: "text", media_type: "text/plain", data: "doc" } }] }] }, "messages[0].content[0]"],
    ["a server tool other than web search", { tools: [{ type: "code_execution_20250825", name: "code_execution" }] }, "tools[0].type"],
  ])("refuses %s with a 400 naming the field, before any upstream call", async (_name, extra, param) => {
    const error = await anthropic.messages
      .create({ model: "claude-on-openai", max_tokens: 50, messages: [{ role: "user", content: "hi" }], ...extra } as Anthropic.MessageCreateParamsNonStreaming)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({ type: "error", error: { type: "invalid_request_error", code: "unsupported_feature", param } });
    expect(stack.simulator.stats.requests).toHaveLength(0);
  });
});

describe("web search across shapes (contract section 15)", () => {
  it("chat web_search_options on gpt-on-anthropic: Anthropic's web search server tool, the answer given, billed per search (JSON and stream)", async () => {
    const params = {
      model: "gpt-on-anthropic",
      messages: [{ role: "user" as const, content: "When was Claude Shannon born? #sim:web_search=2" }],
      web_search_options: { search_context_size: "low" as const, user_location: { type: "approximate" as const, approximate: { city: "Paris", country: "FR" } } },
    };
    const { data: completion, response } = await openai.chat.completions.create(params).withResponse();
    expect(response.headers.get("x-gateway-dropped-params")).toBe("web_search_options.search_context_size");
    expect(upstream().path).toBe("/v1/messages");
    expect(upstreamBody().tools).toEqual([{ type: "web_search_20250305", name: "web_search", user_location: { type: "approximate", city: "Paris", country: "FR" } }]);
    expect(completion.choices[0]!.message).toMatchObject({ role: "assistant", content: expect.stringMatching(/\w/), refusal: null, annotations: [] });
    expect(completion.choices[0]!.finish_reason).toBe("stop");
    expect((await oneBillingEvent(response.headers.get("x-request-id"))).usage).toMatchObject({ webSearchRequests: 2 });

    const { data: stream, response: streamed } = await openai.chat.completions.create({ ...params, stream: true, stream_options: { include_usage: true } }).withResponse();
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? "").join("")).toBe(completion.choices[0]!.message.content);
    expect(chunks.at(-1)!.usage).toBeTruthy();
    expect((await oneBillingEvent(streamed.headers.get("x-request-id"))).usage).toMatchObject({ webSearchRequests: 2 });
  });

  it("Anthropic's web search tool on claude-on-openai: dropped and listed, the answer given without searching", async () => {
    const { data: message, response } = await anthropic.messages
      .create({ model: "claude-on-openai", max_tokens: 50, messages: [{ role: "user", content: "Search the web for Shannon" }], tools: [{ type: "web_search_20250305", name: "web_search", max_uses: 8 }] })
      .withResponse();
    expect(message.content[0]).toMatchObject({ type: "text" });
    expect(response.headers.get("x-gateway-dropped-params")).toBe("tools[0]");
    expect(upstream().path).toBe("/v1/chat/completions");
    expect(upstreamBody()).not.toHaveProperty("tools");
  });
});

describe("/v1/chat/completions served by an Anthropic-shape upstream", () => {
  it("system and developer messages, multi-turn: the upstream gets a Messages request with max_tokens", async () => {
    const { data: completion, response } = await openai.chat.completions
      .create({
        model: "gpt-on-anthropic",
        messages: [
          { role: "system", content: "Be brief." },
          { role: "developer", content: [{ type: "text", text: "Answer in English." }] },
          { role: "user", content: "Hello" },
          { role: "assistant", content: "Hi there" },
          { role: "user", content: "How are you?" },
        ],
        user: "user-1",
        top_p: 0.9,
      })
      .withResponse();
    expect(completion).toMatchObject({ object: "chat.completion", choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant" } }] });
    expect(completion.choices[0]!.message.content).toMatch(/\w+/);
    expect(upstream().path).toBe("/v1/messages");
    expect(upstreamBody()).toEqual({
      model: "gpt-via-anthropic-a",
      max_tokens: 4096,
      system: [
        { type: "text", text: "Be brief." },
        { type: "text", text: "Answer in English." },
      ],
      messages: [
        { role: "user", content: [{ type: "text", text: "Hello" }] },
        { role: "assistant", content: [{ type: "text", text: "Hi there" }] },
        { role: "user", content: [{ type: "text", text: "How are you?" }] },
      ],
      top_p: 0.9,
      metadata: { user_id: "user-1" },
    });
    const reported = upstream().usage!;
    expect(completion.usage).toMatchObject({ prompt_tokens: reported.input_tokens, completion_tokens: reported.output_tokens, total_tokens: reported.input_tokens + reported.output_tokens });
    const event = await oneBillingEvent(response.headers.get("x-request-id"));
    expect(event).toMatchObject({ endpoint: "chat.completions", upstream: "sim-anthropic-a", status: "ok", estimated: false });
    expect(event.usage).toMatchObject({ inputTokens: reported.input_tokens, outputTokens: reported.output_tokens });
  });

  it("image_url parts become base64 and URL image sources", async () => {
    await openai.chat.completions.create({
      model: "gpt-on-anthropic",
      max_completion_tokens: 20,
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "Describe" },
            { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}`, detail: "low" } },
            { type: "image_url", image_url: { url: "https://example.com/cat.png" } },
          ],
        },
      ],
    });
    expect(upstreamBody().max_tokens).toBe(20);
    expect((upstreamBody().messages as unknown[])[0]).toEqual({
      role: "user",
      content: [
        { type: "text", text: "Describe" },
        { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
        { type: "image", source: { type: "url", url: "https://example.com/cat.png" } },
      ],
    });
  });

  it("a tool call round trip: tool_calls, then a tool message, then text", async () => {
    const tools: OpenAI.Chat.ChatCompletionTool[] = [{ type: "function", function: { name: "get_weather", parameters: weatherSchema } }];
    const first = await openai.chat.completions.create({ model: "gpt-on-anthropic", tools, tool_choice: "required", parallel_tool_calls: false, messages: [{ role: "user", content: "Weather?" }] });
    const choice = first.choices[0]!;
    expect(choice.finish_reason).toBe("tool_calls");
    expect(choice.message.content).toBeNull();
    const call = choice.message.tool_calls![0]! as OpenAI.Chat.ChatCompletionMessageFunctionToolCall;
    expect(call).toMatchObject({ type: "function", function: { name: "get_weather" } });
    expect(JSON.parse(call.function.arguments)).toEqual({ city: "test" });
    expect(upstreamBody()).toMatchObject({
      tools: [{ name: "get_weather", input_schema: weatherSchema }],
      tool_choice: { type: "any", disable_parallel_tool_use: true },
    });

    const second = await openai.chat.completions.create({
      model: "gpt-on-anthropic",
      tools,
      messages: [{ role: "user", content: "Weather?" }, choice.message, { role: "tool", tool_call_id: call.id, content: "Sunny" }],
    });
    expect(second.choices[0]).toMatchObject({ finish_reason: "stop", message: { role: "assistant" } });
    expect(second.choices[0]!.message.content).toMatch(/\w+/);
    expect((upstreamBody().messages as unknown[]).slice(1)).toEqual([
      { role: "assistant", content: [{ type: "tool_use", id: call.id, name: "get_weather", input: { city: "test" } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: call.id, content: "Sunny" }] },
    ]);
  });

  it("stop as a string is sent as an array; the matched sequence comes back with finish_reason stop", async () => {
    const seed = "Name three things";
    const word = await thirdWord(seed);
    const completion = await openai.chat.completions.create({ model: "gpt-on-anthropic", stop: word, messages: [{ role: "user", content: seed }] });
    expect(upstreamBody().stop_sequences).toEqual([word]);
    expect(completion.choices[0]).toMatchObject({ finish_reason: "stop", stop_sequence: word });
    expect(completion.choices[0]!.message.content!.split(" ")).toHaveLength(2);
  });

  it("max_tokens truncation is finish_reason length; cached tokens are reported within prompt_tokens", async () => {
    const truncated = await openai.chat.completions.create({ model: "gpt-on-anthropic", max_tokens: 3, messages: [{ role: "user", content: "Tell me a story" }] });
    expect(truncated.choices[0]!.finish_reason).toBe("length");
    expect(truncated.usage?.completion_tokens).toBe(3);
    const cached = await openai.chat.completions.create({ model: "gpt-on-anthropic", messages: [{ role: "user", content: "#sim:cached=10 shared prefix" }] });
    expect(cached.usage?.prompt_tokens).toBe(upstream().usage!.input_tokens);
    expect(cached.usage?.prompt_tokens_details?.cached_tokens).toBe(10);
  });

  it("streaming: the SDK's helper assembles text; usage shown only when asked", async () => {
    const final = await openai.chat.completions.stream({ model: "gpt-on-anthropic", messages: [{ role: "user", content: "Stream please" }] }).finalChatCompletion();
    expect(final.choices[0]).toMatchObject({ finish_reason: "stop", message: { role: "assistant" } });
    expect(final.choices[0]!.message.content!.split(" ")).toHaveLength(upstream().usage!.output_tokens);

    const plain = await openai.chat.completions.create({ model: "gpt-on-anthropic", messages: [{ role: "user", content: "no usage" }], stream: true });
    const chunks: OpenAI.Chat.ChatCompletionChunk[] = [];
    for await (const chunk of plain) chunks.push(chunk);
    expect(chunks[0]!.choices[0]!.delta.role).toBe("assistant");
    expect(chunks.every((chunk) => chunk.choices.length === 1 && !chunk.usage)).toBe(true);
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe("stop");

    const { data: withUsage, response } = await openai.chat.completions
      .create({ model: "gpt-on-anthropic", messages: [{ role: "user", content: "#sim:cached=5 with usage" }], stream: true, stream_options: { include_usage: true } })
      .withResponse();
    const usageChunks: OpenAI.Chat.ChatCompletionChunk[] = [];
    for await (const chunk of withUsage) if (chunk.usage) usageChunks.push(chunk);
    const reported = upstream().usage!;
    expect(usageChunks).toHaveLength(1);
    expect(usageChunks[0]!.choices).toEqual([]);
    expect(usageChunks[0]!.usage).toMatchObject({ prompt_tokens: reported.input_tokens, completion_tokens: reported.output_tokens, prompt_tokens_details: { cached_tokens: 5 } });
    const event = await oneBillingEvent(response.headers.get("x-request-id"));
    expect(event.usage).toMatchObject({ inputTokens: reported.input_tokens, outputTokens: reported.output_tokens, cachedInputTokens: 5 });
  });

  it("streaming a tool call: id and name on the first delta, arguments after; the helper assembles it", async () => {
    const tools: OpenAI.Chat.ChatCompletionTool[] = [{ type: "function", function: { name: "get_weather", parameters: weatherSchema } }];
    const stream = await openai.chat.completions.create({ model: "gpt-on-anthropic", tools, messages: [{ role: "user", content: "Weather?" }], stream: true });
    const deltas: OpenAI.Chat.ChatCompletionChunk.Choice.Delta.ToolCall[] = [];
    let finish: string | null = null;
    for await (const chunk of stream) {
      deltas.push(...(chunk.choices[0]?.delta.tool_calls ?? []));
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(deltas[0]).toMatchObject({ index: 0, type: "function", function: { name: "get_weather", arguments: "" } });
    expect(deltas[0]!.id).toMatch(/^toolu_/);
    expect(deltas.slice(1).every((delta) => delta.index === 0 && delta.id === undefined)).toBe(true);
    expect(finish).toBe("tool_calls");

    const final = await openai.chat.completions.stream({ model: "gpt-on-anthropic", tools, messages: [{ role: "user", content: "Weather?" }] }).finalChatCompletion();
    const call = final.choices[0]!.message.tool_calls![0]! as OpenAI.Chat.ChatCompletionMessageFunctionToolCall;
    expect(final.choices[0]!.finish_reason).toBe("tool_calls");
    expect(JSON.parse(call.function.arguments)).toEqual({ city: "test" });
  });

  it("a mid-stream cut ends with the chat error event; the SDK throws", async () => {
    const stream = await openai.chat.completions.create({ model: "gpt-on-anthropic", messages: [{ role: "user", content: "#sim:cut_after=2 go" }], stream: true });
    const received: string[] = [];
    const error = await (async () => {
      for await (const chunk of stream) received.push(chunk.choices[0]?.delta.content ?? "");
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as Error).message).toMatch(/mid-stream|before it was complete/);
    expect(received.join("")).not.toBe("");
  });

  it.each([
    ["n > 1", { n: 2 }, "n"],
    ["logprobs", { logprobs: true }, "logprobs"],
    ["audio", { audio: { voice: "alloy", format: "mp3" } }, "audio"],
    ["json_object mode", { response_format: { type: "json_object" } }, "response_format"],
  ])("refuses %s with a 400 naming the field", async (_name, extra, param) => {
    const error = await openai.chat.completions
      .create({ model: "gpt-on-anthropic", messages: [{ role: "user", content: "hi" }], ...extra } as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error).toMatchObject({ status: 400, code: "unsupported_feature", param });
    expect(stack.simulator.stats.requests).toHaveLength(0);
  });

  it("a temperature above Anthropic's range is dropped (the model's default applies), listed", async () => {
    const { response } = await openai.chat.completions.create({ model: "gpt-on-anthropic", messages: [{ role: "user", content: "hi" }], temperature: 1.5 }).withResponse();
    expect(response.headers.get("x-gateway-dropped-params")).toBe("temperature");
    expect(upstreamBody()).not.toHaveProperty("temperature");
  });

  it("a field one target cannot take is served by the other target's own shape", async () => {
    const completion = await openai.chat.completions.create({ model: "mixed-test", n: 2, messages: [{ role: "user", content: "hi" }] });
    expect(completion.choices[0]!.message.content).toMatch(/\w+/);
    expect(stack.simulator.stats.requests.map((record) => record.model)).toEqual(["mixed-openai"]);
  });

  it("images cannot be generated on an Anthropic-shape upstream: 400 naming model", async () => {
    const error = await openai.images.generate({ model: "image-on-anthropic", prompt: "a cat" }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 400, code: "unsupported_feature", param: "model" });
  });
});

describe.each([
  ["gpt-on-anthropic", "/v1/messages"],
  ["gpt-chat-only", "/v1/chat/completions"],
])("/v1/responses served through another API (%s -> %s)", (model, path) => {
  it("string input and instructions; usage and billing are the upstream's", async () => {
    const { data: response, response: raw } = await openai.responses.create({ model, input: "Hello", instructions: "Be brief.", metadata: { team: "a" } }).withResponse();
    expect(response).toMatchObject({ object: "response", status: "completed", metadata: { team: "a" } });
    expect(response.output_text).toMatch(/\w+/);
    expect(upstream().path).toBe(path);
    const reported = upstream().usage!;
    expect(response.usage).toMatchObject({ input_tokens: reported.input_tokens, output_tokens: reported.output_tokens, total_tokens: reported.input_tokens + reported.output_tokens });
    const event = await oneBillingEvent(raw.headers.get("x-request-id"));
    expect(event).toMatchObject({ endpoint: "responses", status: "ok", estimated: false });
    expect(event.usage).toMatchObject({ inputTokens: reported.input_tokens, outputTokens: reported.output_tokens });
  });

  it("a function call round trip with input items, and an image in the input", async () => {
    const tools: OpenAI.Responses.FunctionTool[] = [{ type: "function", name: "get_weather", parameters: weatherSchema, strict: false }];
    const first = await openai.responses.create({
      model,
      tools,
      input: [{ role: "user", content: [{ type: "input_text", text: "Weather here?" }, { type: "input_image", image_url: `data:image/png;base64,${PNG}`, detail: "auto" }] }],
    });
    const call = first.output.find((item) => item.type === "function_call")!;
    expect(call).toMatchObject({ type: "function_call", name: "get_weather", status: "completed" });
    expect(JSON.parse(call.arguments)).toEqual({ city: "test" });
    const sentImage = JSON.stringify(upstreamBody().messages);
    expect(sentImage).toContain(PNG);

    const second = await openai.responses.create({
      model,
      tools,
      input: [
        { role: "user", content: "Weather here?" },
        { type: "function_call", call_id: call.call_id, name: call.name, arguments: call.arguments },
        { type: "function_call_output", call_id: call.call_id, output: "Sunny" },
      ],
    });
    expect(second.status).toBe("completed");
    expect(second.output_text).toMatch(/\w+/);
  });

  it("max_output_tokens truncation is incomplete: max_output_tokens", async () => {
    const response = await openai.responses.create({ model, input: "Tell me a story", max_output_tokens: 3 });
    expect(response.status).toBe("incomplete");
    expect(response.incomplete_details).toEqual({ reason: "max_output_tokens" });
    expect(response.usage?.output_tokens).toBe(3);
  });

  it("streaming: the SDK's helper assembles text and function calls; sequence numbers count up", async () => {
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    const stream = openai.responses.stream({ model, input: "Stream it" });
    stream.on("event", (event) => events.push(event));
    const final = await stream.finalResponse();
    expect(final.status).toBe("completed");
    expect(final.output_text.split(" ")).toHaveLength(upstream().usage!.output_tokens);
    expect(final.usage?.output_tokens).toBe(upstream().usage!.output_tokens);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_event, index) => index));
    expect(events.map((event) => event.type).filter((type) => !type.endsWith(".delta"))).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);

    const withTool = await openai.responses
      .stream({ model, input: "Weather?", tools: [{ type: "function", name: "get_weather", parameters: weatherSchema, strict: false }] })
      .finalResponse();
    const call = withTool.output.find((item) => item.type === "function_call")!;
    expect(JSON.parse(call.arguments)).toEqual({ city: "test" });
  });

  it("a mid-stream cut ends with the Responses error event", async () => {
    const stream = await openai.responses.create({ model, input: "#sim:cut_after=2 go", stream: true });
    const types: string[] = [];
    const errors: { message?: string; sequence_number?: number }[] = [];
    const thrown = await (async () => {
      for await (const event of stream) {
        types.push(event.type);
        if (event.type === "error") errors.push(event);
      }
    })().catch((e: unknown) => e);
    expect(errors[0]?.message ?? (thrown as Error | undefined)?.message).toMatch(/mid-stream|before it was complete/);
    expect(types[0]).toBe("response.created");
  });

  it.each([
    ["a built-in tool it cannot run", { tools: [{ type: "file_search", vector_store_ids: ["vs_1"] }] }, "tools[0]"],
    // previous_response_id is continued from the gateway's own store on every model (contract
    // section 18): test/responses-state.test.ts, on a stack with the control plane and the worker.
  ])("refuses %s with a 400 naming the field", async (_name, extra, param) => {
    const error = await openai.responses.create({ model, input: "hi", ...extra } as OpenAI.Responses.ResponseCreateParamsNonStreaming).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 400, code: "unsupported_feature", param });
    expect(stack.simulator.stats.requests).toHaveLength(0);
  });

  it("store: true is kept by the gateway (contract section 18): nothing is dropped, the upstream is asked statelessly", async () => {
    const { data, response } = await openai.responses.create({ model, input: "hi", store: true }).withResponse();
    expect(data).toMatchObject({ status: "completed" });
    expect(response.headers.get("x-gateway-dropped-params")).toBeNull();
    expect(await openai.responses.retrieve(data.id)).toMatchObject({ id: data.id, store: true });
  });
});
