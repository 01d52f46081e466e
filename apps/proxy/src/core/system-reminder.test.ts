import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { foldSystemMessages, hasSystemMessage, systemReminder } from "./system-reminder.ts";

type Message = { role: string; content: unknown; [field: string]: unknown };
const text = (value: string) => ({ type: "text", text: value });
const reminder = (value: string) => text(systemReminder(value));

describe("systemReminder", () => {
  it("wraps the text as Claude Code writes its own reminders", () => {
    expect(systemReminder("Be terse.")).toBe("<system-reminder>\nBe terse.\n</system-reminder>");
  });
});

describe("foldSystemMessages", () => {
  it("a list without a system message is returned as it is (the same array)", () => {
    const messages = [{ role: "user", content: "hi" }, { role: "assistant", content: "yo" }];
    expect(foldSystemMessages(messages)).toBe(messages);
    expect(hasSystemMessage(messages)).toBe(false);
  });

  it("Claude Code 2.1: a system message after the last user turn becomes a user turn of its own, its cache_control kept", () => {
    const system = { role: "system", content: [{ type: "text", text: "# Environment", cache_control: { type: "ephemeral" } }], output_config: { effort: "medium" } };
    const user = { role: "user", content: [text("say hi")] };
    expect(foldSystemMessages([user, system])).toEqual([user, { role: "user", content: [{ type: "text", text: systemReminder("# Environment"), cache_control: { type: "ephemeral" } }] }]);
  });

  it("goes to the start of the next user turn, after its tool results (Anthropic wants those first)", () => {
    const toolUse = { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "f", input: {} }] };
    const result = { type: "tool_result", tool_use_id: "t1", content: "42" };
    const folded = foldSystemMessages([{ role: "user", content: "go" }, toolUse, { role: "system", content: "Now summarise." }, { role: "user", content: [result, text("thanks")] }]);
    expect(folded.at(-1)).toEqual({ role: "user", content: [result, reminder("Now summarise."), text("thanks")] });
    expect(folded).toHaveLength(3);
  });

  it("never moved past an assistant turn: before one, a user turn in its place; a string user turn becomes blocks", () => {
    expect(foldSystemMessages([{ role: "user", content: "a" }, { role: "system", content: "S" }, { role: "assistant", content: "b" }, { role: "system", content: "T" }, { role: "user", content: "c" }])).toEqual([
      { role: "user", content: "a" },
      { role: "user", content: [reminder("S")] },
      { role: "assistant", content: "b" },
      { role: "user", content: [reminder("T"), text("c")] },
    ]);
  });

  it("between tool results and the assistant's next turn: after the results, before that turn", () => {
    const toolUse = { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "f", input: {} }] };
    const results = { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "42" }] };
    const answer = { role: "assistant", content: "It is 42." };
    expect(foldSystemMessages([{ role: "user", content: "go" }, toolUse, results, { role: "system", content: "S" }, answer])).toEqual([
      { role: "user", content: "go" },
      toolUse,
      results,
      { role: "user", content: [reminder("S")] },
      answer,
    ]);
  });

  it("no user turn follows: a user turn in its place, so an assistant prefill stays last", () => {
    expect(foldSystemMessages([{ role: "user", content: "a" }, { role: "system", content: "S1" }, { role: "system", content: [text("S2")] }, { role: "assistant", content: "{" }])).toEqual([
      { role: "user", content: "a" },
      { role: "user", content: [reminder("S1"), reminder("S2")] },
      { role: "assistant", content: "{" },
    ]);
  });

  it("a block that is not text goes along as it is; odd entries are kept, never thrown on", () => {
    const image = { type: "image", source: { type: "url", url: "https://x/y.png" } };
    expect(foldSystemMessages([{ role: "system", content: [text("look"), image] }, { role: "user", content: 7 }, null, "x"])).toEqual([
      { role: "user", content: [reminder("look"), image] },
      { role: "user", content: 7 },
      null,
      "x",
    ]);
  });

  const toolResult = fc.record({ type: fc.constant("tool_result"), tool_use_id: fc.string(), content: fc.string() });
  const block = fc.oneof(fc.string().map(text), fc.record({ type: fc.constantFrom("image", "document", "some_future_block"), x: fc.string() }));
  // A user turn as Anthropic takes one: its tool results first.
  const userContent = fc.tuple(fc.array(toolResult, { maxLength: 2 }), fc.array(block, { maxLength: 3 })).map(([results, rest]) => [...results, ...rest]);
  const message: fc.Arbitrary<Message> = fc.oneof(
    fc.record({ role: fc.constant("user"), content: fc.oneof(fc.string(), userContent) }),
    fc.record({ role: fc.constant("assistant"), content: fc.oneof(fc.string(), fc.array(fc.string().map(text), { maxLength: 3 })) }),
    fc.record({ role: fc.constant("system"), content: fc.oneof(fc.string(), fc.array(fc.string().map(text), { minLength: 1, maxLength: 3 })) }),
    fc.record({ role: fc.constantFrom("developer", "some_future_role"), content: fc.string() }),
  );

  it("property: no system message is left, every other message keeps its order, every system text is read once in a user turn at or after its place, never after a later assistant turn", () => {
    fc.assert(
      fc.property(fc.array(message, { maxLength: 12 }), (messages) => {
        const before = JSON.stringify(messages);
        const folded = foldSystemMessages(messages) as Message[];
        expect(JSON.stringify(messages)).toBe(before);
        expect(folded.some((m) => m.role === "system")).toBe(false);
        // Non-system messages other than the user turns that took reminders are the same objects, in order.
        const others = messages.filter((m) => m.role !== "system" && m.role !== "user");
        expect(folded.filter((m) => m.role !== "user")).toEqual(others);
        expect(folded.filter((m) => m.role === "user").length).toBeGreaterThanOrEqual(messages.filter((m) => m.role === "user").length);
        // Each system text, as a reminder, appears in the user turns exactly as many times as it was sent.
        const sent = messages.filter((m) => m.role === "system").flatMap((m) => (typeof m.content === "string" ? [m.content] : (m.content as { text: string }[]).map((b) => b.text)));
        const read = folded
          .filter((m) => m.role === "user" && Array.isArray(m.content))
          .flatMap((m) => m.content as { type: string; text?: string }[])
          .filter((b) => b.type === "text" && typeof b.text === "string" && b.text.startsWith("<system-reminder>\n"))
          .map((b) => b.text);
        const userSent = messages.filter((m) => m.role === "user").flatMap((m) => (typeof m.content === "string" ? [m.content] : (m.content as { text?: string }[]).map((b) => b.text ?? "")));
        const expected = [...sent.map(systemReminder), ...userSent.filter((t) => t.startsWith("<system-reminder>\n"))];
        expect(read.sort()).toEqual(expected.sort());
        // Between the same two other turns as before: no reminder moves past an assistant turn.
        const segments = (list: Message[]) => {
          const found: string[][] = [[]];
          for (const m of list) {
            if (m?.role === "system") found.at(-1)!.push(...(typeof m.content === "string" ? [m.content] : (m.content as { text: string }[]).map((b) => b.text)).map(systemReminder));
            else if (m?.role === "user") {
              if (Array.isArray(m.content)) found.at(-1)!.push(...(m.content as { type: string; text?: string }[]).filter((b) => b.type === "text" && b.text?.startsWith("<system-reminder>\n")).map((b) => b.text!));
            } else found.push([]);
          }
          return found.map((segment) => segment.sort());
        };
        expect(segments(folded)).toEqual(segments(messages));
        // Tool results still lead every user turn that has them.
        for (const m of folded) {
          if (m.role !== "user" || !Array.isArray(m.content)) continue;
          const types = (m.content as { type: string }[]).map((b) => b.type);
          const firstOther = types.findIndex((t) => t !== "tool_result");
          if (firstOther !== -1) expect(types.slice(firstOther)).not.toContain("tool_result");
        }
      }),
      { numRuns: 500 },
    );
  });
});
