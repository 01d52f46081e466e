import { describe, expect, it } from "vitest";
import { MessageStream } from "@anthropic-ai/sdk/lib/MessageStream";
import { fixtureEvents, payloads, runStream, sdkReadable } from "../../__fixtures__/fixtures.ts";
import { streamThrough } from "../../__fixtures__/pairs.ts";

const messagesStreamFromChat = streamThrough("messages", "chat");

const translate = (name: string) => runStream(messagesStreamFromChat(), fixtureEvents(`openai-chat/${name}.chunks.txt`));

describe("chat chunks -> Anthropic stream events", () => {
  it("text: one message_start on the first chunk, one text block, message_delta with input and cached tokens", async () => {
    const { text, perEvent } = translate("text-cached");
    expect(payloads(perEvent[0]!).map((event) => event.type)).toEqual(["message_start"]);
    expect(payloads(text).map((event) => event.type)).toEqual([
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    expect(payloads(text).find((event) => event.type === "message_delta")).toEqual({
      type: "message_delta",
      delta: { stop_reason: "end_turn", stop_sequence: null },
      usage: { input_tokens: 210, cache_creation_input_tokens: 0, cache_read_input_tokens: 1024, output_tokens: 5 },
    });
    const final = await MessageStream.fromReadableStream(sdkReadable(text)).finalMessage();
    expect(final.content).toEqual([{ type: "text", text: "The capital is Paris." }]);
    expect(final.usage).toMatchObject({ input_tokens: 210, cache_read_input_tokens: 1024, output_tokens: 5 });
    expect(final.id).toBe("msg_CAf7Gm5Tq1WzXc8Nv3Kp6Rb2Ys0Lh");
  });

  it("text then two tool calls: increasing block indexes, each block closed before the next, input_json_delta pieces", async () => {
    const { text } = translate("text-then-tools");
    const events = payloads(text);
    const starts = events.filter((event) => event.type === "content_block_start");
    expect(starts.map((event) => [event.index, (event.content_block as { type: string }).type])).toEqual([
      [0, "text"],
      [1, "tool_use"],
      [2, "tool_use"],
    ]);
    const order = events
      .map((event) => `${String(event.type)}:${String(event.index)}`)
      .filter((entry) => entry.startsWith("content_block_"))
      .map((entry) => entry.replace("content_block_", ""));
    expect(order).toEqual(["start:0", "delta:0", "stop:0", "start:1", "delta:1", "delta:1", "stop:1", "start:2", "delta:2", "stop:2"]);
    const final = await MessageStream.fromReadableStream(sdkReadable(text)).finalMessage();
    expect(final.stop_reason).toBe("tool_use");
    expect(final.content).toEqual([
      { type: "text", text: "Checking both cities." },
      { type: "tool_use", id: "call_8Hq2ZfXbT3mK9pLw1cVn5RdY", name: "get_weather", input: { city: "Paris" } },
      { type: "tool_use", id: "call_Jt6Wm0sQeA4xN7uGk2BpLh9Z", name: "get_weather", input: { city: "Tokyo" } },
    ]);
  });

  it("length -> max_tokens, reasoning tokens as thinking_tokens", async () => {
    const final = await MessageStream.fromReadableStream(sdkReadable(translate("length").text)).finalMessage();
    expect(final.stop_reason).toBe("max_tokens");
    expect(final.usage).toMatchObject({ input_tokens: 14, output_tokens: 64 });
  });

  it("finish() closes a stream the upstream ended whole; later calls add nothing", () => {
    const translator = messagesStreamFromChat();
    const events = fixtureEvents("openai-chat/text-cached.chunks.txt");
    const text = events.map((event) => translator.push(event)).join("");
    expect(translator.finish()).toBe("");
    expect(payloads(text).filter((event) => event.type === "message_stop")).toHaveLength(1);
    expect(translator.emitted).toBe(payloads(text).length);
  });
});
