import { describe, expect, it } from "vitest";
import { fixtureJson } from "../../__fixtures__/fixtures.ts";
import { responseThrough } from "../../__fixtures__/pairs.ts";

const responseFromChatCompletion = responseThrough("responses", "chat");

const chat = (name: string) => fixtureJson(`openai-chat/${name}.json`);
const request = { model: "gpt-x", input: "Hi", metadata: { team: "a" }, tools: [] };

describe("chat completion -> Responses response", () => {
  it("text with cached tokens: a completed message item, usage in Responses words, the request echoed", () => {
    const response = responseFromChatCompletion(chat("text-cached"), request);
    expect(response).toMatchObject({
      id: "resp_CAf3kU9mWq2LxYb7Rz1TnPd4Hs8Ve",
      object: "response",
      status: "completed",
      model: "gpt-4.1-2025-04-14",
      incomplete_details: null,
      metadata: { team: "a" },
      store: false,
      output: [{ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "The capital of France is Paris.", annotations: [] }] }],
      usage: { input_tokens: 1234, input_tokens_details: { cached_tokens: 1024 }, output_tokens: 8, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 1242 },
    });
  });

  it("tool calls become function_call items with their call ids and arguments", () => {
    expect(responseFromChatCompletion(chat("tool-calls"), request).output).toEqual([
      { id: "fc_call_8Hq2ZfXbT3mK9pLw1cVn5RdY", type: "function_call", status: "completed", call_id: "call_8Hq2ZfXbT3mK9pLw1cVn5RdY", name: "get_weather", arguments: '{"city":"Paris"}' },
      { id: "fc_call_Jt6Wm0sQeA4xN7uGk2BpLh9Z", type: "function_call", status: "completed", call_id: "call_Jt6Wm0sQeA4xN7uGk2BpLh9Z", name: "get_weather", arguments: '{"city":"Tokyo"}' },
    ]);
  });

  it("length is incomplete (max_output_tokens); reasoning tokens kept apart", () => {
    const response = responseFromChatCompletion(chat("length"), request);
    expect(response).toMatchObject({ status: "incomplete", incomplete_details: { reason: "max_output_tokens" }, usage: { output_tokens: 64, output_tokens_details: { reasoning_tokens: 56 } } });
    expect((response.output as { status: string }[])[0]!.status).toBe("incomplete");
  });

  it("a refusal is a refusal part", () => {
    expect((responseFromChatCompletion(chat("refusal"), request).output as { content: unknown }[])[0]!.content).toEqual([
      { type: "refusal", refusal: "I'm sorry, I can't assist with that request." },
    ]);
  });
});
