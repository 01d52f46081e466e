import { describe, expect, it } from "vitest";
import { fixtureJson } from "../../__fixtures__/fixtures.ts";
import { responseThrough } from "../../__fixtures__/pairs.ts";
import { REDACTED_THINKING_PREFIX } from "./output-items.ts";

const responseFromMessage = responseThrough("responses", "messages");

const message = (name: string) => fixtureJson(`anthropic-messages/${name}.json`);
const request = { model: "gpt-x", input: "Hi" };

describe("Anthropic message -> Responses response", () => {
  it("text with cache reads and writes: usage keeps both apart", () => {
    expect(responseFromMessage(message("text-cached"), request)).toMatchObject({
      id: "resp_01XFDUDYJgAACzvnptvVoYEL",
      status: "completed",
      output: [{ type: "message", status: "completed", content: [{ type: "output_text", text: "The capital of France is Paris." }] }],
      usage: { input_tokens: 2034, input_tokens_details: { cached_tokens: 1800, cache_write_tokens: 200 }, output_tokens: 10, total_tokens: 2044 },
    });
  });

  it("blocks in order: message, function_call, function_call", () => {
    const output = responseFromMessage(message("tool-use"), request).output as Record<string, unknown>[];
    expect(output.map((item) => item.type)).toEqual(["message", "function_call", "function_call"]);
    expect(output[1]).toEqual({ id: "fc_toolu_01T1x1fJ34qAmk2tNTrN7Up6", type: "function_call", status: "completed", call_id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", name: "get_weather", arguments: '{"city":"Paris"}' });
  });

  it("thinking -> a reasoning item (summary + signature), redacted thinking -> marked encrypted_content", () => {
    const response = responseFromMessage(message("thinking-tool-use"), request);
    const output = response.output as Record<string, unknown>[];
    expect(output[0]).toMatchObject({ type: "reasoning", summary: [{ type: "summary_text", text: "The user wants the weather in Paris; I should call the tool." }], encrypted_content: expect.stringMatching(/^EqQB/) });
    expect(output[1]).toMatchObject({ type: "reasoning", summary: [], encrypted_content: expect.stringMatching(new RegExp(`^${REDACTED_THINKING_PREFIX}EmwK`)) });
    expect(response.usage).toMatchObject({ output_tokens: 187, output_tokens_details: { reasoning_tokens: 140 } });
  });

  it.each([
    ["max-tokens", { status: "incomplete", incomplete_details: { reason: "max_output_tokens" } }],
    ["stop-sequence", { status: "completed", incomplete_details: null }],
  ])("%s", (name, expected) => {
    expect(responseFromMessage(message(name), request)).toMatchObject(expected);
  });
});
