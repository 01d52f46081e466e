import { describe, expect, it } from "vitest";
import { fixtureJson } from "../../__fixtures__/fixtures.ts";
import { responseThrough } from "../../__fixtures__/pairs.ts";

const messageFromChatCompletion = responseThrough("messages", "chat");

const chat = (name: string) => fixtureJson(`openai-chat/${name}.json`);

describe("chat completion -> Anthropic message", () => {
  it("text, with cached prompt tokens moved to cache_read_input_tokens", () => {
    expect(messageFromChatCompletion(chat("text-cached"))).toEqual({
      id: "msg_CAf3kU9mWq2LxYb7Rz1TnPd4Hs8Ve",
      type: "message",
      role: "assistant",
      model: "gpt-4.1-2025-04-14",
      content: [{ type: "text", text: "The capital of France is Paris." }],
      stop_reason: "end_turn",
      stop_sequence: null,
      usage: { input_tokens: 210, cache_creation_input_tokens: 0, cache_read_input_tokens: 1024, output_tokens: 8 },
    });
  });

  it("parallel tool calls become tool_use blocks in order, arguments parsed", () => {
    const message = messageFromChatCompletion(chat("tool-calls"));
    expect(message.stop_reason).toBe("tool_use");
    expect(message.content).toEqual([
      { type: "tool_use", id: "call_8Hq2ZfXbT3mK9pLw1cVn5RdY", name: "get_weather", input: { city: "Paris" } },
      { type: "tool_use", id: "call_Jt6Wm0sQeA4xN7uGk2BpLh9Z", name: "get_weather", input: { city: "Tokyo" } },
    ]);
  });

  it.each([
    ["length", "max_tokens", { input_tokens: 14, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 64, output_tokens_details: { thinking_tokens: 56 } }],
    ["refusal", "refusal", { input_tokens: 31, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 11 }],
  ])("%s -> stop_reason %s", (name, stopReason, usage) => {
    const message = messageFromChatCompletion(chat(name));
    expect(message.stop_reason).toBe(stopReason);
    expect(message.usage).toEqual(usage);
    expect((message.content as { text: string }[])[0]!.text.length).toBeGreaterThan(0);
  });

  it("a malformed body becomes an empty message, not a throw", () => {
    expect(messageFromChatCompletion("nonsense")).toMatchObject({ type: "message", content: [], stop_reason: "end_turn" });
  });
});
