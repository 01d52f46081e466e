import { describe, expect, it } from "vitest";
import { DroppedParams } from "../../core/drops.ts";
import { fixtureEvents, payloads, runStream } from "../__fixtures__/fixtures.ts";
import { translationBetween } from "../index.ts";

/*
 * Gemini's thought signatures through the chat and Responses clients (the codec, core/opaque.ts):
 * written tagged into the field the client echoes (chat `thinking_blocks`, Responses
 * `encrypted_content`), read back as Gemini's, put back on the function call they came with; toward
 * an Anthropic-shape target the same value is another provider's (dropped, listed).
 */
const SIGNATURE = "CiQBjz1rX5Zq7m3Qe8kGm0zFv2l0xv8n1sB2o9Gk0b6m3oQn2wQKdgGPPWtfR2m1wYq0f6Zk9Xc3kq7mB1h0s8aT5rVYp3xH0e1cQ2nD4uZl6tW8yK0jR5oE2vS7aB3fM9gN1hL4pC6dU8wX0zY2qT5rV7sA1bC3eG5iK7mO9qS1uW3yA==";
const CALL = { functionCall: { id: "9tx2ul1k", name: "get_weather", args: { city: "Paris" } }, thoughtSignature: SIGNATURE };
const parsed = (body: Record<string, unknown>) => ({ body, model: String(body.model), stream: body.stream === true, outputBound: 1000 });

function modelParts(client: "chat" | "responses", body: Record<string, unknown>): { parts: unknown; drops: string[] } {
  const drops = new DroppedParams(false);
  const written = translationBetween(client, "gemini").request(parsed(body), drops).body as { contents: Array<{ role: string; parts: unknown }> };
  return { parts: written.contents.find((content) => content.role === "model")?.parts, drops: drops.paths };
}

describe("Gemini signatures through chat and Responses clients", () => {
  it("chat: the stream's thinking_blocks carry the call's signature tagged; echoed, it is back on the call", () => {
    const { text } = runStream(translationBetween("chat", "gemini").stream(parsed({ model: "g", stream: true })), fixtureEvents("gemini/thinking-function-call.chunks.txt"));
    const blocks = payloads(text).flatMap((chunk) => ((chunk.choices as Array<{ delta: { thinking_blocks?: unknown[] } }>)[0]?.delta.thinking_blocks ?? []) as Array<Record<string, unknown>>);
    expect(blocks.at(-1)).toMatchObject({ type: "thinking", signature: `gemini.signature:${SIGNATURE}` });
    const assistant = { role: "assistant", content: null, thinking_blocks: [blocks.at(-1)], tool_calls: [{ id: "9tx2ul1k", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }] };
    const messages = [{ role: "user", content: "Weather?" }, assistant, { role: "tool", tool_call_id: "9tx2ul1k", content: "21" }];
    const { parts, drops } = modelParts("chat", { model: "g", messages });
    expect(parts).toEqual([{ text: String(blocks.at(-1)!.thinking), thought: true }, CALL]);
    expect(drops).toEqual([]);
    // The same blocks toward an Anthropic-shape model: Gemini's signature is another provider's.
    const toClaude = new DroppedParams(false);
    const body = translationBetween("chat", "messages").request(parsed({ model: "c", messages }), toClaude).body;
    expect(JSON.stringify(body)).not.toContain(SIGNATURE);
    expect(toClaude.paths).toEqual(["messages[1].thinking_blocks[0]"]);
  });

  it("Responses: a whole answer's reasoning item holds the signature tagged; its items sent back as input sign the call again", () => {
    const answer = { candidates: [{ content: { role: "model", parts: [CALL] }, finishReason: "STOP" }], usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 3, totalTokenCount: 8 }, modelVersion: "gemini-3-pro-preview", responseId: "r" };
    const output = translationBetween("responses", "gemini").response(answer, parsed({ model: "g" })).output as Array<Record<string, unknown>>;
    expect(output.map((item) => item.type)).toEqual(["reasoning", "function_call"]);
    expect(output[0]).toMatchObject({ summary: [], encrypted_content: `gemini.signature:${SIGNATURE}` });
    const input = [{ role: "user", content: "Weather?" }, ...output, { type: "function_call_output", call_id: "9tx2ul1k", output: "21" }];
    expect(modelParts("responses", { model: "g", input })).toEqual({ parts: [CALL], drops: [] });
  });

  it("a signature that is not Gemini's is dropped, listed; the call then gets Google's skip signature", () => {
    const input = [
      { role: "user", content: "Weather?" },
      { type: "reasoning", summary: [], encrypted_content: "EqQBCgIYAhIM" },
      { type: "function_call", call_id: "c1", name: "get_weather", arguments: "{}" },
      { type: "function_call_output", call_id: "c1", output: "21" },
    ];
    expect(modelParts("responses", { model: "g", input })).toEqual({ parts: [{ functionCall: { id: "c1", name: "get_weather", args: {} }, thoughtSignature: "skip_thought_signature_validator" }], drops: ["input[1]"] });
  });
});
