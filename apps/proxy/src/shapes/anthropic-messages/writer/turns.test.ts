import { describe, expect, it } from "vitest";
import { requestThrough } from "../../__fixtures__/pairs.ts";
import { AnthropicTurns } from "./turns.ts";
import { DroppedParams } from "../../../core/drops.ts";
import { foldSystemMessages } from "../../../core/system-reminder.ts";

const messagesRequestFromChat = requestThrough("chat", "messages");
const messagesRequestFromResponses = requestThrough("responses", "messages");

type Message = { role: string; content: Record<string, unknown>[] };

/**
 * What Anthropic checks of tool use in `messages`: a user turn's tool_result blocks come first in
 * it, and answer tool_use blocks of the assistant turn right before it. `takesSystem`: the model
 * takes mid-conversation system messages (else there must be none left).
 */
function expectValidToolOrder(messages: Message[], takesSystem: boolean): void {
  messages.forEach((message, index) => {
    if (!takesSystem) expect(message.role, `messages[${index}]`).not.toBe("system");
    const results = message.content.filter((block) => block.type === "tool_result");
    if (results.length === 0) return;
    const firstOther = message.content.findIndex((block) => block.type !== "tool_result");
    expect(firstOther === -1 || firstOther >= results.length, `messages[${index}]: tool results first`).toBe(true);
    const before = messages[index - 1];
    expect(before?.role, `messages[${index - 1}] is the assistant's tool use`).toBe("assistant");
    const uses = new Set(before!.content.filter((block) => block.type === "tool_use").map((block) => block.id));
    for (const result of results) expect(uses.has(result.tool_use_id), `messages[${index}] answers ${String(result.tool_use_id)}`).toBe(true);
  });
}

const reminder = (text: string) => ({ type: "text", text: `<system-reminder>\n${text}\n</system-reminder>` });

describe("AnthropicTurns", () => {
  it("a system message said while tool results are owed waits until the last of them is in", () => {
    const turns = new AnthropicTurns();
    turns.add("user", [{ type: "text", text: "go" }]);
    turns.add("assistant", [{ type: "tool_use", id: "a", name: "f", input: {} }, { type: "tool_use", id: "b", name: "f", input: {} }]);
    turns.system([{ type: "text", text: "S" }]);
    turns.add("user", [{ type: "tool_result", tool_use_id: "a", content: "1" }]);
    turns.add("user", [{ type: "tool_result", tool_use_id: "b", content: "2" }]);
    turns.add("user", [{ type: "text", text: "next" }]);
    expect(turns.finish().map((message) => [message.role, message.content.map((block) => block.type)])).toEqual([
      ["user", ["text"]],
      ["assistant", ["tool_use", "tool_use"]],
      ["user", ["tool_result", "tool_result"]],
      ["system", ["text"]],
      ["user", ["text"]],
    ]);
  });

  it("results that never come: the system message goes at the end; an empty one is nothing", () => {
    const turns = new AnthropicTurns();
    turns.add("assistant", [{ type: "tool_use", id: "a", name: "f", input: {} }]);
    turns.system([]);
    turns.system([{ type: "text", text: "S" }]);
    expect(turns.messages.map((message) => message.role)).toEqual(["assistant"]);
    expect(turns.finish().map((message) => message.role)).toEqual(["assistant", "system"]);
  });
});

describe("Responses -> Anthropic: a later system or developer message", () => {
  const translate = (input: unknown[]) => messagesRequestFromResponses({ model: "gpt-x", input, tools: [{ type: "function", name: "shell", parameters: { type: "object" } }] }, new DroppedParams(false), 1024);

  it("leading ones are the system prompt; one after the first other item stays a system message in its place", () => {
    const body = translate([
      { role: "system", content: "One." },
      { role: "developer", content: "Two." },
      { role: "user", content: "Hi" },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "Hello" }] },
      { role: "developer", content: [{ type: "input_text", text: "Later." }, { type: "input_text", text: "Terse." }] },
      { role: "user", content: "Again" },
    ]);
    expect(body.system).toEqual([{ type: "text", text: "One." }, { type: "text", text: "Two." }]);
    expect(body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "Hi" }] },
      { role: "assistant", content: [{ type: "text", text: "Hello" }] },
      { role: "system", content: [{ type: "text", text: "Later." }, { type: "text", text: "Terse." }] },
      { role: "user", content: [{ type: "text", text: "Again" }] },
    ]);
    // Folded for a model without mid-conversation system messages: at the start of the next user turn.
    expect(foldSystemMessages(body.messages as unknown[])).toEqual([
      { role: "user", content: [{ type: "text", text: "Hi" }] },
      { role: "assistant", content: [{ type: "text", text: "Hello" }] },
      { role: "user", content: [reminder("Later."), reminder("Terse."), { type: "text", text: "Again" }] },
    ]);
  });

  it("Codex's developer message between a call and its output: valid for both kinds of model, the results first", () => {
    const body = translate([
      { role: "user", content: "List files" },
      { type: "function_call", call_id: "call_1", name: "shell", arguments: '{"cmd":"ls"}' },
      { role: "developer", content: "The sandbox is now read-only." },
      { type: "function_call_output", call_id: "call_1", output: "a.txt" },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "One file." }] },
      { role: "developer", content: "Answer in French." },
      { role: "user", content: "Thanks" },
    ]);
    const messages = body.messages as Message[];
    expect(messages.map((message) => message.role)).toEqual(["user", "assistant", "user", "system", "assistant", "system", "user"]);
    expectValidToolOrder(messages, true);
    const folded = foldSystemMessages(messages) as Message[];
    expectValidToolOrder(folded, false);
    expect(folded).toEqual([
      { role: "user", content: [{ type: "text", text: "List files" }] },
      { role: "assistant", content: [{ type: "tool_use", id: "call_1", name: "shell", input: { cmd: "ls" } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "call_1", content: "a.txt" }] },
      // Before the answer it came before, as a user turn of its own (Anthropic combines it with the results).
      { role: "user", content: [reminder("The sandbox is now read-only.")] },
      { role: "assistant", content: [{ type: "text", text: "One file." }] },
      { role: "user", content: [reminder("Answer in French."), { type: "text", text: "Thanks" }] },
    ]);
  });
});

describe("chat -> Anthropic: a system message between tool calls and their results", () => {
  it("waits for the results; folded, it follows them in their user turn", () => {
    const body = messagesRequestFromChat(
      {
        model: "gpt-x",
        messages: [
          { role: "user", content: "Weather?" },
          { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "w", arguments: "{}" } }, { id: "c2", type: "function", function: { name: "w", arguments: "{}" } }] },
          { role: "tool", tool_call_id: "c1", content: "Sunny" },
          { role: "system", content: "Be brief." },
          { role: "tool", tool_call_id: "c2", content: "Rain" },
          { role: "user", content: "So?" },
        ],
        tools: [{ type: "function", function: { name: "w", parameters: { type: "object" } } }],
      },
      new DroppedParams(false),
      1024,
    );
    const messages = body.messages as Message[];
    expect(messages.map((message) => message.role)).toEqual(["user", "assistant", "user", "system", "user"]);
    expectValidToolOrder(messages, true);
    const folded = foldSystemMessages(messages) as Message[];
    expectValidToolOrder(folded, false);
    expect(folded.at(-1)).toEqual({ role: "user", content: [reminder("Be brief."), { type: "text", text: "So?" }] });
  });
});
