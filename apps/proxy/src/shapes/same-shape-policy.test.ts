import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { GatewayError } from "@gateway/contracts";
import { WIRE_FORMATS } from "./wire-formats.ts";
import { DroppedParams } from "../core/drops.ts";
import { translationBetween } from "./index.ts";

/*
 * Contract section 15, same shape: the proxy refuses only what it must read (the model, `messages`
 * as a list, `stream` as a boolean, the numbers of section 14); roles, content blocks and fields it
 * does not know pass untouched, and the provider decides.
 */

const parsers = {
  messages: (body: Record<string, unknown>) => WIRE_FORMATS.messages.parse({ model: "m", max_tokens: 5, ...body }),
  count: (body: Record<string, unknown>) => WIRE_FORMATS["messages.count_tokens"].parse({ model: "m", ...body }),
  chat: (body: Record<string, unknown>) => WIRE_FORMATS["chat.completions"].parse({ model: "m", ...body }),
  responses: (body: Record<string, unknown>) => WIRE_FORMATS.responses.parse({ model: "m", ...body }),
};

describe("what passes untouched", () => {
  it.each<[string, keyof typeof parsers, Record<string, unknown>]>([
    ["a mid-conversation system message (Claude Code 2.1)", "messages", { messages: [{ role: "user", content: "hi" }, { role: "system", content: [{ type: "text", text: "env", cache_control: { type: "ephemeral" } }], output_config: { effort: "medium" } }] }],
    ["the same in a token count", "count", { messages: [{ role: "user", content: "hi" }, { role: "system", content: "env" }] }],
    ["a role from the future", "messages", { messages: [{ role: "critic", content: "hmm" }] }],
    ["a content block type from the future", "messages", { messages: [{ role: "user", content: [{ type: "hologram", data: {} }] }] }],
    ["an empty messages list (the provider's 400 to give)", "messages", { messages: [] }],
    ["a system prompt of an unknown form", "messages", { messages: [{ role: "user", content: "hi" }], system: { text: "odd" } }],
    ["unknown top-level fields", "messages", { messages: [{ role: "user", content: "hi" }], per_turn_control: { x: 1 }, context_management: { edits: [] } }],
    ["a chat role from the future", "chat", { messages: [{ role: "critic", content: "hmm" }] }],
    ["a chat content part from the future", "chat", { messages: [{ role: "user", content: [{ type: "input_hologram" }] }] }],
    ["null content on a user message", "chat", { messages: [{ role: "user", content: null }] }],
    ["tools of an unknown form", "chat", { messages: [{ role: "user", content: "hi" }], tools: { web: true } }],
    ["Responses input of an unknown form", "responses", { input: { type: "future_item" } }],
  ])("%s", (_name, parser, body) => {
    const parsed = parsers[parser](body);
    // Same object: nothing was copied or normalised on the way.
    for (const [field, value] of Object.entries(body)) expect(parsed.body[field]).toBe(value);
  });
});

describe("what the proxy must read is still refused, naming the field", () => {
  it.each<[string, keyof typeof parsers, Record<string, unknown>, string]>([
    ["no model", "messages", { model: undefined, messages: [] }, "model"],
    ["an empty model", "chat", { model: "", messages: [] }, "model"],
    ["messages not a list", "messages", { messages: { role: "user" } }, "messages"],
    ["chat messages not a list", "chat", { messages: "hi" }, "messages"],
    ["no messages", "chat", {}, "messages"],
    ["stream as a string", "messages", { messages: [], stream: "true" }, "stream"],
    ["max_tokens 0", "messages", { messages: [], max_tokens: 0 }, "max_tokens"],
    ["a fractional thinking budget", "messages", { messages: [], thinking: { type: "enabled", budget_tokens: 1.5 } }, "thinking.budget_tokens"],
    ["n above 128", "chat", { messages: [], n: 129 }, "n"],
    ["temperature as a string", "chat", { messages: [], temperature: "hot" }, "temperature"],
    ["max_output_tokens as a string", "responses", { max_output_tokens: "5" }, "max_output_tokens"],
  ])("%s", (_name, parser, body, param) => {
    expect(() => parsers[parser](body)).toThrow(expect.objectContaining({ code: "invalid_body", param }));
  });
});

describe("odd shapes never make a 500", () => {
  // Any JSON as a message: the parsers pass it, and a translator either maps it or refuses it with
  // the 400 naming a field, never a throw of its own (which would be a 500).
  const oddMessage = fc.oneof(
    fc.jsonValue(),
    fc.record({ role: fc.constantFrom("user", "assistant", "system", "developer", "tool", "function", "critic"), content: fc.jsonValue() }, { requiredKeys: ["role"] }),
    fc.record({
      role: fc.constantFrom("user", "assistant", "system"),
      content: fc.array(fc.record({ type: fc.constantFrom("text", "image", "tool_use", "tool_result", "thinking", "image_url", "hologram"), text: fc.jsonValue(), source: fc.jsonValue(), content: fc.jsonValue(), input: fc.jsonValue() }, { requiredKeys: ["type"] }), { maxLength: 3 }),
    }),
  );

  it.each([
    ["messages -> chat", "messages", translationBetween("messages", "chat")],
    ["chat -> messages", "chat", translationBetween("chat", "messages")],
  ] as const)("%s", (_name, parser, translation) => {
    fc.assert(
      fc.property(fc.array(oddMessage, { maxLength: 5 }), (messages) => {
        const parsed = parsers[parser]({ messages });
        parsed.outputBound = 5;
        try {
          translation.request(parsed, new DroppedParams(false));
        } catch (error) {
          expect(error).toBeInstanceOf(GatewayError);
        }
      }),
      { numRuns: 1000 },
    );
  });
});
