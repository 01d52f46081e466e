import { describe, expect, it } from "vitest";
import { ResponseStream } from "openai/lib/responses/ResponseStream";
import { fixtureEvents, payloads, runStream, sdkReadable } from "../../__fixtures__/fixtures.ts";
import { streamThrough } from "../../__fixtures__/pairs.ts";

const responsesStreamFromChat = streamThrough("responses", "chat");

const translate = (name: string) => runStream(responsesStreamFromChat({ model: "gpt-x", input: "Hi" }), fixtureEvents(`openai-chat/${name}.chunks.txt`));

describe("chat chunks -> Responses events", () => {
  it("text: created and in_progress on the first chunk, then the item events, completed with usage; sequence numbers count up", async () => {
    const { text, perEvent } = translate("text-cached");
    expect(payloads(perEvent[0]!).map((event) => event.type)).toEqual(["response.created", "response.in_progress"]);
    const events = payloads(text);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_event, index) => index));
    expect(events.map((event) => event.type)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    const final = await ResponseStream.fromReadableStream(sdkReadable(text)).finalResponse();
    expect(final.output_text).toBe("The capital is Paris.");
    expect(final.usage).toMatchObject({ input_tokens: 1234, input_tokens_details: { cached_tokens: 1024 }, output_tokens: 5 });
  });

  it("text then two calls: a message item, then one function_call item per call with argument deltas", async () => {
    const { text } = translate("text-then-tools");
    const final = await ResponseStream.fromReadableStream(sdkReadable(text)).finalResponse();
    expect(final.status).toBe("completed");
    expect(final.output.map((item) => item.type)).toEqual(["message", "function_call", "function_call"]);
    expect(final.output.slice(1)).toEqual([
      expect.objectContaining({ call_id: "call_8Hq2ZfXbT3mK9pLw1cVn5RdY", name: "get_weather", arguments: '{"city": "Paris"}' }),
      expect.objectContaining({ call_id: "call_Jt6Wm0sQeA4xN7uGk2BpLh9Z", name: "get_weather", arguments: '{"city": "Tokyo"}' }),
    ]);
    const done = payloads(text).filter((event) => event.type === "response.function_call_arguments.done");
    expect(done.map((event) => event.arguments)).toEqual(['{"city": "Paris"}', '{"city": "Tokyo"}']);
  });

  it("length: response.incomplete with max_output_tokens, the message item incomplete", async () => {
    const { text } = translate("length");
    const events = payloads(text);
    expect(events.at(-1)).toMatchObject({ type: "response.incomplete", response: { status: "incomplete", incomplete_details: { reason: "max_output_tokens" } } });
    const final = await ResponseStream.fromReadableStream(sdkReadable(text)).finalResponse();
    expect(final.output[0]).toMatchObject({ type: "message", status: "incomplete" });
    expect(final.usage?.output_tokens_details.reasoning_tokens).toBe(60);
  });
});
