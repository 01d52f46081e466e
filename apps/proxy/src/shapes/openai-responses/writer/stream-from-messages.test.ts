import { describe, expect, it } from "vitest";
import { ResponseStream } from "openai/lib/responses/ResponseStream";
import { fixtureEvents, payloads, runStream, sdkReadable, sseEvents } from "../../__fixtures__/fixtures.ts";
import { streamThrough } from "../../__fixtures__/pairs.ts";

const responsesStreamFromMessages = streamThrough("responses", "messages");

const translate = (name: string) => runStream(responsesStreamFromMessages({ model: "gpt-x", input: "Hi" }), fixtureEvents(`anthropic-messages/${name}.chunks.txt`));

describe("Anthropic stream events -> Responses events", () => {
  it("text: created on message_start, completed on message_stop with cache-aware usage", async () => {
    const { text, perEvent } = translate("text-cached");
    expect(payloads(perEvent[0]!).map((event) => event.type)).toEqual(["response.created", "response.in_progress"]);
    const final = await ResponseStream.fromReadableStream(sdkReadable(text)).finalResponse();
    expect(final.output_text).toBe("The capital of France is Paris.");
    expect(final.usage).toMatchObject({ input_tokens: 2034, input_tokens_details: { cached_tokens: 1800, cache_write_tokens: 200 }, output_tokens: 10 });
  });

  it("text then tool_use: the SDK assembles the message and the function call", async () => {
    const { text } = translate("text-then-tool");
    const events = payloads(text);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_event, index) => index));
    const final = await ResponseStream.fromReadableStream(sdkReadable(text)).finalResponse();
    expect(final.output.map((item) => item.type)).toEqual(["message", "function_call"]);
    expect(final.output[1]).toMatchObject({ call_id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", name: "get_weather", arguments: '{"city": "Paris"}', status: "completed" });
  });

  it("thinking: a reasoning item with the summary streamed and the signature in encrypted_content", async () => {
    const { text } = translate("thinking-tool-use");
    const types = payloads(text).map((event) => event.type);
    expect(types).toContain("response.reasoning_summary_text.delta");
    const final = await ResponseStream.fromReadableStream(sdkReadable(text)).finalResponse();
    expect(final.output[0]).toMatchObject({
      type: "reasoning",
      summary: [{ type: "summary_text", text: "The user wants the weather in Paris; I should call the tool." }],
      encrypted_content: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds3b8Gz1EPs5Un0dC0pK5bQ",
    });
    expect(final.usage?.output_tokens_details.reasoning_tokens).toBe(140);
  });

  it("max_tokens: response.incomplete", async () => {
    const final = await ResponseStream.fromReadableStream(sdkReadable(translate("max-tokens").text)).finalResponse();
    expect(final).toMatchObject({ status: "incomplete", incomplete_details: { reason: "max_output_tokens" } });
  });
});

describe("a tool without input", () => {
  it("streams no JSON upstream; the function call's arguments are {}", async () => {
    const sse = [
      'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":5,"output_tokens":1}}}\n\n',
      'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"now","input":{}}}\n\n',
      'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n',
      'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":12}}\n\n',
      'event: message_stop\ndata: {"type":"message_stop"}\n\n',
    ].join("");
    const { text } = runStream(responsesStreamFromMessages({ model: "gpt-x" }), sseEvents(sse));
    const final = await ResponseStream.fromReadableStream(sdkReadable(text)).finalResponse();
    expect(final.output[0]).toMatchObject({ type: "function_call", call_id: "toolu_1", name: "now", arguments: "{}" });
  });
});
