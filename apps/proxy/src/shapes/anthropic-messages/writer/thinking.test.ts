import { describe, expect, it } from "vitest";
import { MessageStream } from "@anthropic-ai/sdk/lib/MessageStream";
import { DroppedParams } from "../../../core/drops.ts";
import { fixtureEvents, payloads, runStream, sdkReadable } from "../../__fixtures__/fixtures.ts";
import { translationBetween } from "../../index.ts";

/*
 * Reasoning from a Gemini upstream to an Anthropic Messages client (recorded-style Gemini 3 streams
 * in __fixtures__/gemini): thinking blocks framed as Anthropic streams them, only when the client
 * turned thinking on, signed with Gemini's thoughtSignature tagged by the codec; the SDK's final
 * message echoed back as the assistant turn (as Claude Code does) puts each signature back on the
 * Gemini part it came with.
 */
const CALL_SIGNATURE = "CiQBjz1rX5Zq7m3Qe8kGm0zFv2l0xv8n1sB2o9Gk0b6m3oQn2wQKdgGPPWtfR2m1wYq0f6Zk9Xc3kq7mB1h0s8aT5rVYp3xH0e1cQ2nD4uZl6tW8yK0jR5oE2vS7aB3fM9gN1hL4pC6dU8wX0zY2qT5rV7sA1bC3eG5iK7mO9qS1uW3yA==";
const TEXT_SIGNATURE = "CiEBjz1rX3pQ9nL2kV7wT0xR5mB8cY1eG4hJ6sA3dF0uZ9oKbwGPPWtf8sN2vX5qL1mR7tY0wC4eH9kJ3pB6aD2fU8zS5gI1nO7rM0yT4xV6cE9hK2jL5wQ8sA1dF3gH6kP0zX==";
const THINKING = { type: "enabled", budget_tokens: 2048 };

const messagesOnGemini = translationBetween("messages", "gemini");
const client = (body: Record<string, unknown>) => ({ body, model: "gemini3", stream: true, outputBound: 1000 });

function stream(fixture: string, body: Record<string, unknown>): string {
  return runStream(messagesOnGemini.stream(client(body)), fixtureEvents(`gemini/${fixture}.chunks.txt`)).text;
}

const TOOL_RESULT = { role: "user", content: [{ type: "tool_result", tool_use_id: "9tx2ul1k", content: "21 degrees" }] };

/** The client's next request, with the SDK's final message as the assistant turn, as the Gemini upstream gets it. */
function nextRequest(content: unknown[], then: unknown = TOOL_RESULT) {
  const drops = new DroppedParams(false);
  const messages = [{ role: "user", content: "Weather in Paris?" }, { role: "assistant", content }, then];
  const body = messagesOnGemini.request(client({ model: "gemini3", max_tokens: 1000, thinking: THINKING, messages }), drops).body as { contents: Array<{ role: string; parts: Record<string, unknown>[] }> };
  return { contents: body.contents, drops: drops.paths };
}

describe("Gemini reasoning -> Anthropic thinking blocks", () => {
  it("a function call: thinking_delta pieces, the call's signature as a signature_delta before content_block_stop, then tool_use", async () => {
    const text = stream("thinking-function-call", { thinking: THINKING });
    const events = payloads(text);
    expect(events.map((event) => [event.type, (event.content_block as { type?: string } | undefined)?.type ?? (event.delta as { type?: string } | undefined)?.type ?? null])).toEqual([
      ["message_start", null],
      ["content_block_start", "thinking"],
      ["content_block_delta", "thinking_delta"],
      ["content_block_delta", "thinking_delta"],
      ["content_block_delta", "signature_delta"],
      ["content_block_stop", null],
      ["content_block_start", "tool_use"],
      ["content_block_delta", "input_json_delta"],
      ["content_block_stop", null],
      ["message_delta", null],
      ["message_stop", null],
    ]);
    expect(events.at(-2)).toMatchObject({ delta: { stop_reason: "tool_use" } });
    expect(events[1]).toEqual({ type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "", signature: "" } });
    expect(events[4]).toEqual({ type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: `gemini.signature:${CALL_SIGNATURE}` } });

    const final = await MessageStream.fromReadableStream(sdkReadable(text)).finalMessage();
    expect(final.content).toEqual([
      { type: "thinking", thinking: "**Checking the weather**\n\nThe user asks for the weather in Paris, so I will call get_weather with the city.", signature: `gemini.signature:${CALL_SIGNATURE}` },
      { type: "tool_use", id: "9tx2ul1k", name: "get_weather", input: { city: "Paris" } },
    ]);
    // Echoed back: the thought summary as a thought, the signature byte-exact on the function call it came with.
    const { contents, drops } = nextRequest(final.content);
    expect(contents[1]).toEqual({
      role: "model",
      parts: [
        { text: "**Checking the weather**\n\nThe user asks for the weather in Paris, so I will call get_weather with the city.", thought: true },
        { functionCall: { id: "9tx2ul1k", name: "get_weather", args: { city: "Paris" } }, thoughtSignature: CALL_SIGNATURE },
      ],
    });
    expect(drops).toEqual([]);
  });

  it("a text answer: the unsigned thought summary, the text, then the answer's signature in an empty thinking block", async () => {
    const text = stream("thinking-text", { thinking: { type: "adaptive" } });
    const final = await MessageStream.fromReadableStream(sdkReadable(text)).finalMessage();
    expect(final.content).toEqual([
      { type: "thinking", thinking: "**Greeting back**\n\nA short, friendly answer will do.", signature: "" },
      { type: "text", text: "Hello! How can I help you today?" },
      { type: "thinking", thinking: "", signature: `gemini.signature:${TEXT_SIGNATURE}` },
    ]);
    expect(final.stop_reason).toBe("end_turn");
    // Echoed back: the signature on the answer's text; the unsigned block verifies nowhere (dropped, listed).
    const { contents, drops } = nextRequest(final.content, { role: "user", content: "Thanks" });
    expect(contents[1]).toEqual({ role: "model", parts: [{ text: "Hello! How can I help you today?", thoughtSignature: TEXT_SIGNATURE }] });
    expect(drops).toEqual(["messages[1].content[0]"]);
  });

  it("no thinking blocks when the client did not turn thinking on (as Anthropic answers); a tool_use echoed alone gets the skip signature", () => {
    for (const body of [{}, { thinking: { type: "disabled" } }]) {
      const events = payloads(stream("thinking-function-call", body));
      expect(events.filter((event) => event.type === "content_block_start").map((event) => (event.content_block as { type: string }).type)).toEqual(["tool_use"]);
      expect(events.some((event) => (event.delta as { type?: string } | undefined)?.type === "signature_delta")).toBe(false);
    }
    const { contents } = nextRequest([{ type: "tool_use", id: "9tx2ul1k", name: "get_weather", input: { city: "Paris" } }]);
    expect(contents[1]!.parts).toEqual([{ functionCall: { id: "9tx2ul1k", name: "get_weather", args: { city: "Paris" } }, thoughtSignature: "skip_thought_signature_validator" }]);
  });

  it("a whole answer: the same blocks, signed by the codec, only with thinking on", () => {
    const answer = {
      candidates: [{ content: { role: "model", parts: [{ text: "Plan: call the tool.", thought: true }, { functionCall: { id: "c1", name: "get_weather", args: { city: "Paris" } }, thoughtSignature: CALL_SIGNATURE }] }, finishReason: "STOP" }],
      usageMetadata: { promptTokenCount: 61, candidatesTokenCount: 18, thoughtsTokenCount: 72, totalTokenCount: 151 },
      modelVersion: "gemini-3-pro-preview",
      responseId: "r1",
    };
    const withThinking = messagesOnGemini.response(answer, client({ model: "gemini3", thinking: THINKING }));
    expect(withThinking.content).toEqual([
      { type: "thinking", thinking: "Plan: call the tool.", signature: `gemini.signature:${CALL_SIGNATURE}` },
      { type: "tool_use", id: "c1", name: "get_weather", input: { city: "Paris" } },
    ]);
    expect(messagesOnGemini.response(answer, client({ model: "gemini3" })).content).toEqual([{ type: "tool_use", id: "c1", name: "get_weather", input: { city: "Paris" } }]);
  });
});
