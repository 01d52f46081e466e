import { describe, expect, it } from "vitest";
import type { EventSourceMessage } from "eventsource-parser";
import { UpstreamEvents } from "../../relay/upstream-events.ts";
import { chatCompletions } from "./wire.ts";

const base = { id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "gpt-4o-mini" };
const usage = { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 };
const content = (text: string, extra: object = { usage: null }) => ({ ...base, choices: [{ index: 0, delta: { content: text }, finish_reason: null }], ...extra });

/**
 * Each chunk's data through the chat tracker, twice: as the proxy reads a plain stream (bytes,
 * `UpstreamEvents`) and as decoded text events. Both must agree; the result is what was shown,
 * the usage taken and whether the stream was complete.
 */
function track(chunks: Array<object | string>, clientAskedForUsage: boolean) {
  const stream = chunks.map((chunk) => `data: ${typeof chunk === "string" ? chunk : JSON.stringify(chunk)}\n\n`).join("");
  const request = chatCompletions.parse({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }], stream: true, ...(clientAskedForUsage ? { stream_options: { include_usage: true } } : {}) });
  const run = (feed: (sink: (event: EventSourceMessage) => void) => void) => {
    const tracker = chatCompletions.createStreamTracker(request);
    const shown: string[] = [];
    feed((event) => {
      if (tracker.observe(event)) shown.push(event.data);
    });
    return { shown, usage: tracker.usage(), complete: tracker.complete };
  };
  const asBytes = run((sink) => new UpstreamEvents((event) => sink(event)).push(Buffer.from(stream)));
  const asText = run((sink) => {
    for (const chunk of chunks) sink({ data: typeof chunk === "string" ? chunk : JSON.stringify(chunk), event: undefined, id: undefined });
  });
  expect(asBytes).toEqual(asText);
  return asBytes;
}

describe("chat completions stream tracker", () => {
  it("takes the usage chunk's usage; shows that chunk only to a client that asked for usage", () => {
    const chunks = [content("Hel"), content("lo"), { ...base, choices: [], usage }, "[DONE]"];
    const hidden = track(chunks, false);
    expect(hidden.usage).toMatchObject({ inputTokens: 11, outputTokens: 7 });
    expect(hidden.complete).toBe(true);
    expect(hidden.shown).toHaveLength(3);
    expect(hidden.shown.some((data) => data.includes('"usage":{'))).toBe(false);
    const shown = track(chunks, true);
    expect(shown.usage).toEqual(hidden.usage);
    expect(shown.shown).toHaveLength(4);
  });

  it("takes usage from a chunk that also has choices, and the last non-null usage wins (LiteLLM #36168)", () => {
    const early = { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 };
    const result = track([content("a", { usage: early }), content("b"), content("c", { usage }), "[DONE]"], false);
    expect(result.usage).toMatchObject({ inputTokens: 11, outputTokens: 7 });
    expect(result.shown).toHaveLength(4);
  });

  it("a chunk that ends with a null usage has none, whatever usage objects it nests", () => {
    const nested = { ...base, choices: [{ index: 0, delta: { content: "x" }, extra: { usage: { prompt_tokens: 99 } } }], usage: null };
    const result = track([nested, "[DONE]"], false);
    expect(JSON.stringify(nested)).toContain('"usage":{');
    expect(result.usage).toBeNull();
    expect(result.shown).toHaveLength(2);
  });

  it("a null usage that is not the chunk's last member does not hide a usage object after it", () => {
    const chunk = `{"id":"c","usage":null,"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7}}`;
    const result = track([chunk, "[DONE]"], false);
    expect(result.usage).toMatchObject({ inputTokens: 5, outputTokens: 2 });
  });

  it("is incomplete without [DONE]", () => {
    expect(track([content("a")], false).complete).toBe(false);
  });
});
