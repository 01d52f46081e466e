import { describe, expect, it } from "vitest";
import { countTokens as cl100k } from "gpt-tokenizer/encoding/cl100k_base";
import { countTokens as o200k } from "gpt-tokenizer/encoding/o200k_base";
import { countChatTokens, encodingForModel } from "./count-tokens.ts";

describe("encodingForModel", () => {
  it.each([
    ["gpt-4o", "o200k_base"],
    ["gpt-4o-mini-2024-07-18", "o200k_base"],
    ["gpt-4.1", "o200k_base"],
    ["gpt-4.1-2099-01-01", "o200k_base"],
    ["o3-mini", "o200k_base"],
    ["o4-mini", "o200k_base"],
    ["gpt-5", "o200k_base"],
    ["gpt-5.9-future", "o200k_base"],
    ["gpt-4", "cl100k_base"],
    ["gpt-4-0613", "cl100k_base"],
    ["gpt-4-turbo", "cl100k_base"],
    ["gpt-3.5-turbo", "cl100k_base"],
    ["gpt-3.5-turbo-9999", "cl100k_base"],
    ["text-embedding-3-small", "cl100k_base"],
    ["llama-3-70b", "o200k_base"],
    ["claude-via-openai", "o200k_base"],
  ])("%s -> %s", (model, encoding) => {
    expect(encodingForModel(model)).toBe(encoding);
  });
});

describe("countChatTokens", () => {
  const role = (name: string, encode: (text: string) => number) => encode(name);

  it("role + text + 3 per message, 3 priming, with the family's encoding", async () => {
    const body = { messages: [{ role: "system", content: "Ünïcode and emoji 🎉 count differently" }, { role: "user", content: [{ type: "text", text: "one" }, { type: "text", text: "two" }] }] };
    const expected = (encode: (text: string) => number) =>
      role("system", encode) + encode("Ünïcode and emoji 🎉 count differently") + 3 + role("user", encode) + encode("one\ntwo") + 3 + 3;
    expect(await countChatTokens(body, "o200k_base")).toBe(expected(o200k));
    expect(await countChatTokens(body, "cl100k_base")).toBe(expected(cl100k));
    expect(expected(o200k)).not.toBe(expected(cl100k));
  });

  it("text that looks like a special token is ordinary text, never a throw", async () => {
    const text = "end <|endoftext|> and <|im_start|>";
    expect(await countChatTokens({ messages: [{ role: "user", content: text }] }, "o200k_base")).toBe(o200k("user") + o200k(text, { disallowedSpecial: new Set() }) + 6);
  });

  it("images cost OpenAI's fixed tile price; every tool call counts its name and arguments", async () => {
    const image = (detail?: string) => ({ messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "data:image/png;base64,AAAA", ...(detail ? { detail } : {}) } }] }] });
    const none = await countChatTokens({ messages: [{ role: "user", content: [] }] }, "o200k_base");
    expect((await countChatTokens(image("low"), "o200k_base")) - none).toBe(85);
    expect((await countChatTokens(image(), "o200k_base")) - none).toBe(765);
    const calls = (n: number) => ({
      messages: [{ role: "assistant", content: null, tool_calls: Array.from({ length: n }, (_, i) => ({ id: `c${i}`, type: "function", function: { name: "lookup", arguments: `{"q":${i}}` } })) }],
    });
    const one = await countChatTokens(calls(1), "o200k_base");
    const two = await countChatTokens(calls(2), "o200k_base");
    expect(two - one).toBe(o200k("lookup") + o200k('{"q":1}') + 3);
  });

  it("tool definitions of any form are counted without throwing, and cost tokens", async () => {
    const messages = [{ role: "user", content: "hi" }];
    const plain = await countChatTokens({ messages }, "o200k_base");
    const odd = [
      { type: "function", function: { name: "a", parameters: { type: "object", properties: { x: null, y: 5, z: { type: ["string", "null"] }, w: { type: "array", items: "nope" } }, required: 7 } } },
      { type: "function", function: { name: "b", description: "deep", parameters: { type: "object", properties: { n: { type: "object", properties: { m: { type: "object", properties: { k: { type: "string", enum: ["p", 1, null] } } } } } } } } },
      { type: "function", function: { name: "c" } },
      { type: "function", function: null },
      "not a tool",
    ];
    const counted = await countChatTokens({ messages, tools: odd, tool_choice: { type: "function", function: { name: "a" } } }, "o200k_base");
    expect(counted).toBeGreaterThan(plain + 9);
    expect(await countChatTokens({ messages, tools: odd, tool_choice: "none" }, "o200k_base")).toBe(counted - o200k("a") - 4 + 1);
  });
});

describe("countChatTokens on large and pathological text", () => {
  it("long text is counted in segments with the same result, a long run of one letter in bounded time, and the event loop keeps turning", async () => {
    const prose = "The quick brown fox jumps over the lazy dog, 12345 times; ünïcødé 🎉 and more.\nNext line.  Two spaces. ".repeat(2000);
    const expected = o200k("user") + o200k(prose) + 6;
    expect(await countChatTokens({ messages: [{ role: "user", content: prose }] }, "o200k_base")).toBe(expected);

    let ticks = 0;
    const timer = setInterval(() => (ticks += 1), 1);
    const started = performance.now();
    const run = "a".repeat(2_000_000);
    const counted = await countChatTokens({ messages: [{ role: "user", content: run }] }, "o200k_base");
    clearInterval(timer);
    expect(counted).toBeGreaterThan(2_000_000 / 8);
    expect(performance.now() - started).toBeLessThan(20_000);
    expect(ticks).toBeGreaterThan(2);
  }, 30_000);
});
