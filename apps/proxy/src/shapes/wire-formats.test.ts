import { describe, expect, it } from "vitest";
import type { EndpointName } from "../core/wire-format.ts";
import { WIRE_FORMATS } from "./wire-formats.ts";

describe("every number a request carries is range-checked at parse (400 naming it, before any arithmetic)", () => {
  const chat = { model: "m", messages: [{ role: "user", content: "hi" }] };
  const messages = { model: "m", max_tokens: 10, messages: [{ role: "user", content: "hi" }] };
  const cases: [EndpointName, Record<string, unknown>, string, string[]][] = [
    ["chat.completions", chat, "n", ["0", "129", "1.5", "1e400", '"2"']],
    ["chat.completions", chat, "max_tokens", ["0", "-1", "1.5", "1e400", "9007199254740993", '"10"']],
    ["chat.completions", chat, "max_completion_tokens", ["0", "2.5", "1e400", "[]"]],
    ["chat.completions", chat, "top_logprobs", ["-1", "21", "0.5"]],
    ["chat.completions", chat, "temperature", ["1e400", "-1e400", '"hot"']],
    ["chat.completions", chat, "seed", ["1e400"]],
    ["messages", messages, "max_tokens", ["0", "1.5", "1e400", "1e300"]],
    ["messages", messages, "thinking.budget_tokens", ["0", "1.5", "1e400", '"1024"']],
    ["messages", messages, "top_k", ["-1", "0.5", "1e400"]],
    ["messages", messages, "temperature", ["1e400"]],
    ["messages.count_tokens", { model: "m", messages: messages.messages }, "thinking.budget_tokens", ["1.5", "1e400"]],
    ["responses", { model: "m", input: "hi" }, "max_output_tokens", ["0", "1.5", "1e400"]],
    ["responses", { model: "m", input: "hi" }, "max_tool_calls", ["0", "1e400"]],
    ["responses", { model: "m", input: "hi" }, "top_logprobs", ["21"]],
    ["images.generations", { model: "m", prompt: "a cat" }, "n", ["0", "11", "1.5", "1e400"]],
    ["embeddings", { model: "m", input: "hi" }, "dimensions", ["0", "1.5", "1e400"]],
  ];
  it.each(cases)("%s: %s", (endpoint, base, param, values) => {
    for (const value of values) {
      const [field, inner] = param.split(".") as [string, string | undefined];
      const member = inner === undefined ? `"${field}":${value}` : `"${field}":{"type":"enabled","${inner}":${value}}`;
      const request = JSON.parse(`${JSON.stringify(base).slice(0, -1)},${member}}`) as unknown;
      expect(() => WIRE_FORMATS[endpoint].parse(request), `${param}: ${value}`).toThrow(expect.objectContaining({ status: 400, type: "invalid_request_error", param }));
    }
  });

  it("the same fields at values the APIs take pass untouched", () => {
    const request = { ...chat, n: 128, max_tokens: 1, max_completion_tokens: 9007199254740991, top_logprobs: 20, temperature: 0, seed: -5, presence_penalty: -2 };
    expect(WIRE_FORMATS["chat.completions"].parse(request).body).toBe(request);
    const anthropic = { ...messages, thinking: { type: "enabled", budget_tokens: 1024 }, top_k: 0, temperature: 1 };
    expect(WIRE_FORMATS.messages.parse(anthropic).body).toBe(anthropic);
    expect(WIRE_FORMATS.responses.parse({ model: "m", input: "hi", max_output_tokens: 16, max_tool_calls: 1, top_logprobs: 0 }).model).toBe("m");
  });
});
