import { describe, expect, it } from "vitest";
import { DroppedParams } from "../../core/drops.ts";
import { PartStream } from "../../core/pipeline.ts";
import { readRequest as readChatRequest } from "../openai-chat/reader/request.ts";
import { readRequest as readMessagesRequest } from "../anthropic-messages/reader/request.ts";
import { ChatStreamWriter } from "../openai-chat/writer/stream.ts";
import { MessagesStreamWriter } from "../anthropic-messages/writer/stream.ts";
import { chatCompletionFromAnswer } from "../openai-chat/writer/response.ts";
import { finishFromConverse } from "./finish.ts";
import { answerFromConverse } from "./reader/response.ts";
import { ConverseStreamReader } from "./reader/stream.ts";
import { converseUsage } from "./usage.ts";
import { converse, converseEventFrame, conversePath } from "./wire.ts";
import { accepts } from "./writer/accepts.ts";
import { writeRequest } from "./writer/request.ts";

/** One ConverseStream event as the transport hands it on (the SSE frame's data). */
const event = (type: string, payload: unknown) => ({ data: `{${JSON.stringify(type)}:${JSON.stringify(payload)}}` });

describe("Bedrock Converse wire facts, usage and finish", () => {
  it("the model id is percent-encoded in the path, an ARN's slash too", () => {
    expect(conversePath("amazon.nova-pro-v1:0", false)).toBe("/model/amazon.nova-pro-v1%3A0/converse");
    expect(conversePath("arn:aws:bedrock:us-east-1:1:inference-profile/us.meta.llama3-3-70b-instruct-v1:0", true)).toBe(
      "/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A1%3Ainference-profile%2Fus.meta.llama3-3-70b-instruct-v1%3A0/converse-stream",
    );
    expect(converseEventFrame("messageStart", '{"role":"assistant"}')).toBe('event: messageStart\ndata: {"messageStart":{"role":"assistant"}}\n\n');
  });

  it("usage: input is the sum of inputTokens and both cache counts; finish reasons in neutral words, raw kept", () => {
    expect(converseUsage({ inputTokens: 10, outputTokens: 7, totalTokens: 47, cacheReadInputTokens: 20, cacheWriteInputTokens: 10 })).toEqual({
      inputTokens: 40, outputTokens: 7, cachedInputTokens: 20, cacheWriteTokens: 10, cacheWrite1hTokens: 0, reasoningTokens: 0, images: 0, webSearchRequests: 0,
    });
    expect(converseUsage(undefined)).toBeNull();
    expect(finishFromConverse("end_turn")).toEqual({ reason: "stop", raw: "end_turn" });
    expect(finishFromConverse("tool_use")?.reason).toBe("tool-calls");
    expect(finishFromConverse("max_tokens")?.reason).toBe("length");
    expect(finishFromConverse("stop_sequence")?.reason).toBe("stop-sequence");
    expect(finishFromConverse("guardrail_intervened")?.reason).toBe("filtered");
    expect(finishFromConverse("content_filtered")?.reason).toBe("filtered");
    expect(finishFromConverse("malformed_tool_use")).toEqual({ reason: "other", raw: "malformed_tool_use" });
    expect(finishFromConverse(undefined)).toBeNull();
  });
});

describe("requests of other shapes as a Converse body", () => {
  it("a chat request: system, alternating messages, a tool call and its result, image, inferenceConfig, toolConfig", () => {
    const drops = new DroppedParams(false);
    const body = {
      model: "nova",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: [{ type: "text", text: "weather?" }, { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } }] },
        { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "weather", arguments: '{"city":"Paris"}' } }] },
        { role: "tool", tool_call_id: "call_1", content: "sunny" },
      ],
      tools: [{ type: "function", function: { name: "weather", description: "Weather of a city", parameters: { type: "object", properties: { city: { type: "string" } } } } }],
      tool_choice: "required",
      temperature: 0.5,
      top_p: 0.9,
      stop: ["END"],
      seed: 3,
    };
    const written = writeRequest(readChatRequest(body, { drops, accepts, outputBound: 256 }), { drops, outputBound: 256 });
    expect(written).toEqual({
      messages: [
        { role: "user", content: [{ text: "weather?" }, { image: { format: "png", source: { bytes: "iVBORw0KGgo=" } } }] },
        { role: "assistant", content: [{ toolUse: { toolUseId: "call_1", name: "weather", input: { city: "Paris" } } }] },
        { role: "user", content: [{ toolResult: { toolUseId: "call_1", content: [{ text: "sunny" }], status: "success" } }] },
      ],
      system: [{ text: "Be brief." }],
      inferenceConfig: { maxTokens: 256, temperature: 0.5, topP: 0.9, stopSequences: ["END"] },
      toolConfig: { tools: [{ toolSpec: { name: "weather", description: "Weather of a city", inputSchema: { json: { type: "object", properties: { city: { type: "string" } } } } } }], toolChoice: { any: {} } },
    });
    // Converse has no seed: dropped, listed.
    expect(drops.paths).toEqual(["seed"]);
  });

  it("a Messages request: a named tool choice, an error result; thinking goes in additionalModelRequestFields for Claude only", () => {
    const body = {
      model: "m",
      max_tokens: 2000,
      system: "S",
      thinking: { type: "enabled", budget_tokens: 1024 },
      messages: [
        { role: "user", content: "go" },
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "f", input: {} }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", is_error: true, content: "boom" }] },
      ],
      tools: [{ name: "f", input_schema: { type: "object" } }],
      tool_choice: { type: "tool", name: "f" },
    };
    const claude = readMessagesRequest(body, { drops: new DroppedParams(false), accepts, outputBound: 2000 });
    claude.model = "anthropic.claude-sonnet-4-5-20250929-v1:0";
    const written = writeRequest(claude, { drops: new DroppedParams(false), outputBound: 2000 });
    // A client's budget reaches a budget-taking model as that number.
    expect(written.additionalModelRequestFields).toEqual({ thinking: { type: "enabled", budget_tokens: 1024 } });
    expect((written.toolConfig as Record<string, unknown>).toolChoice).toEqual({ tool: { name: "f" } });
    // The Messages reader keeps no is_error (the text says it): a neutral failed result is status error.
    expect((written.messages as Array<{ content: unknown[] }>)[2]!.content).toEqual([{ toolResult: { toolUseId: "toolu_1", content: [{ text: "boom" }], status: "success" } }]);
    const failed = { ...claude, turns: [claude.turns[0]!, claude.turns[1]!, { role: "user" as const, path: "messages[2]", parts: [{ type: "tool-result" as const, callId: "toolu_1", name: "f", content: [{ type: "text" as const, text: "boom", path: "x" }], isError: true, path: "messages[2].content[0]" }] }] };
    expect((writeRequest(failed, { drops: new DroppedParams(false), outputBound: 10 }).messages as Array<{ content: Array<{ toolResult: { status: string } }> }>)[2]!.content[0]!.toolResult.status).toBe("error");
    const drops = new DroppedParams(false);
    const nova = readMessagesRequest(body, { drops, accepts, outputBound: 2000 });
    nova.model = "amazon.nova-pro-v1:0";
    expect(writeRequest(nova, { drops, outputBound: 2000 }).additionalModelRequestFields).toBeUndefined();
    expect(drops.paths).toContain("thinking");
  });

  it("refuses what Converse cannot answer, naming the field: several choices, a response format, a remote image", () => {
    const messages = [{ role: "user", content: "hi" }];
    const read = (body: Record<string, unknown>) => writeRequest(readChatRequest({ model: "m", ...body }, { drops: new DroppedParams(false), accepts, outputBound: 10 }), { drops: new DroppedParams(false), outputBound: 10 });
    expect(() => read({ messages, n: 2 })).toThrow(/\bn\b/);
    expect(() => read({ messages, response_format: { type: "json_schema", json_schema: { name: "x", schema: { type: "object" } } } })).toThrow(/response_format/);
    expect(() => read({ messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "https://example.com/a.png" } }] }] })).toThrow(/messages\[0\]\.content\[0\]/);
  });
});

describe("Converse answers and streams in other shapes", () => {
  it("a ConverseResponse with a tool call is a chat completion with tool_calls and its usage", () => {
    const answer = answerFromConverse({
      output: { message: { role: "assistant", content: [{ text: "Let me look." }, { toolUse: { toolUseId: "tooluse_1", name: "weather", input: { city: "Paris" } } }] } },
      stopReason: "tool_use",
      usage: { inputTokens: 12, outputTokens: 5, totalTokens: 17 },
      metrics: { latencyMs: 10 },
    });
    const chat = chatCompletionFromAnswer(answer) as { choices: Array<{ message: Record<string, unknown>; finish_reason: string }>; usage: Record<string, unknown> };
    expect(chat.choices[0]!.finish_reason).toBe("tool_calls");
    expect(chat.choices[0]!.message.content).toBe("Let me look.");
    expect(chat.choices[0]!.message.tool_calls).toEqual([{ id: "tooluse_1", type: "function", function: { name: "weather", arguments: '{"city":"Paris"}' } }]);
    expect(chat.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 });
  });

  it("a ConverseStream (text without a start event, a tool use in pieces, reasoning, usage last) as Anthropic events", () => {
    const stream = new PartStream(new MessagesStreamWriter("nova"), (sink) => new ConverseStreamReader(sink, "toolu_"));
    let out = "";
    out += stream.push(event("messageStart", { role: "assistant" }) as never);
    out += stream.push(event("contentBlockDelta", { contentBlockIndex: 0, delta: { reasoningContent: { text: "think" } } }) as never);
    out += stream.push(event("contentBlockStop", { contentBlockIndex: 0 }) as never);
    out += stream.push(event("contentBlockDelta", { contentBlockIndex: 1, delta: { text: "Hel" }, p: "abcd" }) as never);
    out += stream.push(event("contentBlockDelta", { contentBlockIndex: 1, delta: { text: "lo" } }) as never);
    out += stream.push(event("contentBlockStop", { contentBlockIndex: 1 }) as never);
    out += stream.push(event("contentBlockStart", { contentBlockIndex: 2, start: { toolUse: { toolUseId: "tooluse_9", name: "f" } } }) as never);
    out += stream.push(event("contentBlockDelta", { contentBlockIndex: 2, delta: { toolUse: { input: '{"a":' } } }) as never);
    out += stream.push(event("contentBlockDelta", { contentBlockIndex: 2, delta: { toolUse: { input: "1}" } } }) as never);
    out += stream.push(event("contentBlockStop", { contentBlockIndex: 2 }) as never);
    out += stream.push(event("messageStop", { stopReason: "tool_use" }) as never);
    out += stream.push(event("metadata", { usage: { inputTokens: 9, outputTokens: 4, totalTokens: 13 }, metrics: { latencyMs: 5 } }) as never);
    out += stream.finish();
    const events = out.split("\n\n").filter((frame) => frame.includes("data: ")).map((frame) => JSON.parse(frame.slice(frame.indexOf("data: ") + 6)));
    const types = events.map((e) => e.type);
    expect(types[0]).toBe("message_start");
    expect(types.at(-1)).toBe("message_stop");
    const blocks = events.filter((e) => e.type === "content_block_start").map((e) => e.content_block.type);
    // Unsigned reasoning has no Anthropic thinking block (the Messages writer leaves it out).
    expect(blocks).toEqual(["text", "tool_use"]);
    expect(events.find((e) => e.type === "content_block_start" && e.content_block.type === "tool_use").content_block).toMatchObject({ id: "tooluse_9", name: "f" });
    const json = events.filter((e) => e.delta?.type === "input_json_delta").map((e) => e.delta.partial_json).join("");
    expect(JSON.parse(json)).toEqual({ a: 1 });
    expect(events.filter((e) => e.delta?.type === "text_delta").map((e) => e.delta.text).join("")).toBe("Hello");
    const delta = events.find((e) => e.type === "message_delta");
    expect(delta.delta.stop_reason).toBe("tool_use");
    expect(delta.usage).toMatchObject({ output_tokens: 4 });
  });

  it("ConverseStream reasoning reaches a chat client as reasoning_content; a tool use with no input gets {}", () => {
    const stream = new PartStream(new ChatStreamWriter(true), (sink) => new ConverseStreamReader(sink, "call_"));
    let out = stream.push(event("messageStart", { role: "assistant" }) as never);
    out += stream.push(event("contentBlockDelta", { contentBlockIndex: 0, delta: { reasoningContent: { text: "think" } } }) as never);
    out += stream.push(event("contentBlockStart", { contentBlockIndex: 1, start: { toolUse: { toolUseId: "t1", name: "now" } } }) as never);
    out += stream.push(event("contentBlockStop", { contentBlockIndex: 1 }) as never);
    out += stream.push(event("messageStop", { stopReason: "tool_use" }) as never);
    out += stream.push(event("metadata", { usage: { inputTokens: 9, outputTokens: 4, cacheReadInputTokens: 2 } }) as never);
    out += stream.finish();
    const chunks = out.split("\n\n").filter((frame) => frame.startsWith("data: {")).map((frame) => JSON.parse(frame.slice(6)));
    expect(chunks.some((chunk) => chunk.choices?.[0]?.delta?.reasoning_content === "think")).toBe(true);
    const calls = chunks.flatMap((chunk) => chunk.choices?.[0]?.delta?.tool_calls ?? []);
    expect(calls[0]).toMatchObject({ id: "t1", function: { name: "now" } });
    expect(calls.map((call: { function: { arguments?: string } }) => call.function.arguments ?? "").join("")).toBe("{}");
    expect(chunks.find((chunk) => chunk.choices?.[0]?.finish_reason)?.choices[0].finish_reason).toBe("tool_calls");
    expect(chunks.at(-1).usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 4, prompt_tokens_details: { cached_tokens: 2 } });
  });

  it("the stream tracker is whole at metadata, with its usage; an error event is the transport's Anthropic envelope", () => {
    const tracker = converse.createStreamTracker({ body: {}, model: "m", stream: true });
    tracker.observe({ data: '{"messageStart":{"role":"assistant"}}', event: "messageStart", id: undefined } as never);
    expect(tracker.complete).toBe(false);
    expect(tracker.outputText({ data: '{"contentBlockDelta":{"contentBlockIndex":0,"delta":{"text":"Hi"}}}' } as never)).toBe("Hi");
    tracker.observe({ data: '{"metadata":{"usage":{"inputTokens":3,"outputTokens":2,"totalTokens":5}}}' } as never);
    expect(tracker.complete).toBe(true);
    expect(tracker.usage()).toMatchObject({ inputTokens: 3, outputTokens: 2 });
    expect(tracker.isError({ data: '{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}' } as never)).toBe(true);
    expect(converse.usageFromResponse({ usage: { inputTokens: 1, outputTokens: 1 } })).toMatchObject({ inputTokens: 1, outputTokens: 1 });
  });
});
