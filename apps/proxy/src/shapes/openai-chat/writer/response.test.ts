import { describe, expect, it } from "vitest";
import { fixtureJson } from "../../__fixtures__/fixtures.ts";
import { responseThrough } from "../../__fixtures__/pairs.ts";

const chatCompletionFromMessage = responseThrough("chat", "messages");

const message = (name: string) => fixtureJson(`anthropic-messages/${name}.json`);

describe("Anthropic message -> chat completion", () => {
  it("text; prompt_tokens = input + cache writes + cache reads, cached_tokens = cache reads", () => {
    const completion = chatCompletionFromMessage(message("text-cached"));
    expect(completion).toMatchObject({
      id: "chatcmpl-01XFDUDYJgAACzvnptvVoYEL",
      object: "chat.completion",
      model: "claude-sonnet-4-5-20250929",
      choices: [{ index: 0, message: { role: "assistant", content: "The capital of France is Paris.", refusal: null, annotations: [] }, logprobs: null, finish_reason: "stop" }],
      usage: { prompt_tokens: 2034, completion_tokens: 10, total_tokens: 2044, prompt_tokens_details: { cached_tokens: 1800 }, completion_tokens_details: { reasoning_tokens: 0 } },
    });
    expect(typeof completion.created).toBe("number");
  });

  it("text and tool_use blocks: content plus tool_calls in order", () => {
    const completion = chatCompletionFromMessage(message("tool-use"));
    expect(completion.choices).toEqual([
      {
        index: 0,
        logprobs: null,
        finish_reason: "tool_calls",
        message: {
          role: "assistant",
          content: "I'll check the weather in both cities.",
          refusal: null,
          annotations: [],
          tool_calls: [
            { id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
            { id: "toolu_01Cq8y7vLwJ9Ua3Rz5Hn2Kd4", type: "function", function: { name: "get_weather", arguments: '{"city":"Tokyo"}' } },
          ],
        },
      },
    ]);
  });

  it("thinking is never text: reasoning_content plus the exact blocks in thinking_blocks; thinking tokens as reasoning tokens", () => {
    const completion = chatCompletionFromMessage(message("thinking-tool-use"));
    const choice = (completion.choices as Record<string, Record<string, unknown>>[])[0]!;
    expect(choice.message).toMatchObject({
      content: null,
      reasoning_content: "The user wants the weather in Paris; I should call the tool.",
      thinking_blocks: [
        { type: "thinking", thinking: "The user wants the weather in Paris; I should call the tool.", signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds3b8Gz1EPs5Un0dC0pK5bQ" },
        { type: "redacted_thinking", data: expect.stringMatching(/^EmwK/) },
      ],
    });
    expect(completion.usage).toMatchObject({ completion_tokens: 187, completion_tokens_details: { reasoning_tokens: 140 } });
  });

  it.each([
    ["max-tokens", "length", undefined],
    ["stop-sequence", "stop", "3."],
  ])("%s -> finish_reason %s", (name, finish, stopSequence) => {
    const choice = (chatCompletionFromMessage(message(name)).choices as Record<string, unknown>[])[0]!;
    expect(choice.finish_reason).toBe(finish);
    expect(choice.stop_sequence).toBe(stopSequence);
  });
});
