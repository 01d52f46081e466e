import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { fixtureEvents, fixtureJson, payloads, runStream } from "./__fixtures__/fixtures.ts";
import type { Translation } from "../core/pipeline.ts";
import { translationBetween } from "./index.ts";

const messagesToChat = translationBetween("messages", "chat");
const chatToMessages = translationBetween("chat", "messages");
const responsesToChat = translationBetween("responses", "chat");
const responsesToMessages = translationBetween("responses", "messages");

/**
 * Contract section 11: a translated answer carries what the native API would send, and a field the
 * native API omits is omitted, never `null` (a text block's `citations: null` broke
 * `@ai-sdk/anthropic` at other gateways). Every recorded upstream payload, whole and streamed, goes
 * through every direction; a `null` may sit only under a key the native API itself sends as null.
 */
const NATIVE_NULLS: Record<"messages" | "chat" | "responses", ReadonlySet<string>> = {
  // Message.stop_reason / stop_sequence are always present (null while streaming / when no sequence matched).
  messages: new Set(["stop_reason", "stop_sequence"]),
  // ChatCompletionMessage.content (with tool calls) and refusal, choice logprobs and finish_reason, chunk usage.
  chat: new Set(["content", "refusal", "logprobs", "finish_reason", "usage", "model"]),
  // The Response object's nullable settings, as the Responses API echoes them.
  responses: new Set([
    "completed_at", "error", "incomplete_details", "instructions", "max_output_tokens", "max_tool_calls", "previous_response_id",
    "prompt_cache_key", "safety_identifier", "temperature", "top_p", "usage", "user", "effort", "summary",
  ]),
};

function nullKeys(value: unknown, path = "", out: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((item, index) => nullKeys(item, `${path}[${index}]`, out));
  else if (typeof value === "object" && value !== null) {
    for (const [key, child] of Object.entries(value)) {
      if (child === null) out.push(`${path}.${key}`);
      else nullKeys(child, `${path}.${key}`, out);
    }
  }
  return out;
}

function expectNativeNulls(shape: keyof typeof NATIVE_NULLS, body: unknown): void {
  const unexpected = nullKeys(body).filter((path) => !NATIVE_NULLS[shape].has(path.slice(path.lastIndexOf(".") + 1)));
  expect(unexpected).toEqual([]);
}

const files = (folder: string, suffix: string) =>
  readdirSync(new URL(`./__fixtures__/${folder}/`, import.meta.url))
    .filter((name) => name.endsWith(suffix))
    .map((name) => `${folder}/${name}`);

const client = (body: Record<string, unknown>) => ({ body, model: String(body.model), stream: body.stream === true });

const DIRECTIONS: { translation: Translation; upstream: "openai-chat" | "anthropic-messages"; shape: keyof typeof NATIVE_NULLS; request: Record<string, unknown> }[] = [
  { translation: messagesToChat, upstream: "openai-chat", shape: "messages", request: { model: "claude-x", max_tokens: 100, messages: [] } },
  { translation: chatToMessages, upstream: "anthropic-messages", shape: "chat", request: { model: "gpt-x", messages: [], stream_options: { include_usage: true } } },
  { translation: responsesToChat, upstream: "openai-chat", shape: "responses", request: { model: "gpt-x", input: "Hi", tools: [{ type: "custom", name: "apply_patch" }] } },
  { translation: responsesToMessages, upstream: "anthropic-messages", shape: "responses", request: { model: "gpt-x", input: "Hi" } },
];

describe.each(DIRECTIONS)("$translation.name: native-exact output", ({ translation, upstream, shape, request }) => {
  it.each(files(upstream, ".json"))("%s, whole", (name) => {
    expectNativeNulls(shape, translation.response(fixtureJson(name), client(request)));
  });

  it.each(files(upstream, ".chunks.txt"))("%s, streamed: every event", (name) => {
    const { text } = runStream(translation.stream(client({ ...request, stream: true })), fixtureEvents(name));
    const events = payloads(text);
    expect(events.length).toBeGreaterThan(0);
    for (const event of events) expectNativeNulls(shape, event);
  });
});

describe("Anthropic text blocks from an OpenAI-shape upstream", () => {
  it("carry no citations key at all, whole and streamed", () => {
    const message = messagesToChat.response(fixtureJson("openai-chat/text-cached.json"), client({ model: "claude-x" }));
    expect(message.content).toEqual([{ type: "text", text: expect.any(String) }]);
    const { text } = runStream(messagesToChat.stream(client({ model: "claude-x", stream: true })), fixtureEvents("openai-chat/text-cached.chunks.txt"));
    const start = payloads(text).find((event) => event.type === "content_block_start");
    expect(start).toEqual({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } });
    expect(text).not.toContain("citations");
  });
});
