import { describe, expect, it } from "vitest";
import { ResponseStream } from "openai/lib/responses/ResponseStream";
import { payloads, sdkReadable } from "../../__fixtures__/fixtures.ts";
import { REDACTED_THINKING_PREFIX } from "./output-items.ts";
import { ResponsesStreamEvents } from "./stream-events.ts";

const usage = { inputTokens: 10, outputTokens: 5, cachedInputTokens: 0, cacheWriteTokens: 0, cacheWrite1hTokens: 0, reasoningTokens: 0, images: 0, webSearchRequests: 0 };

describe("ResponsesStreamEvents", () => {
  it("reasoning, redacted reasoning, text then refusal parts in one message item: each in order, the SDK agrees", async () => {
    const writer = new ResponsesStreamEvents({ model: "m" });
    const text = [
      writer.start("m"),
      writer.startReasoning(),
      writer.reasoning("Think"),
      writer.reasoning("ing."),
      writer.reasoningSignature({ origin: "anthropic", value: "sig" }),
      writer.redactedReasoning({ origin: "anthropic", value: "opaque" }),
      writer.text("Hello"),
      writer.refusal("No."),
      writer.finish({ status: "completed" }, usage),
    ].join("");
    const events = payloads(text);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_event, index) => index));
    expect(writer.emitted).toBe(events.length);
    const final = await ResponseStream.fromReadableStream(sdkReadable(text)).finalResponse();
    expect(final.output).toEqual([
      expect.objectContaining({ type: "reasoning", summary: [{ type: "summary_text", text: "Thinking." }], encrypted_content: "sig" }),
      expect.objectContaining({ type: "reasoning", summary: [], encrypted_content: `${REDACTED_THINKING_PREFIX}opaque` }),
      expect.objectContaining({
        type: "message",
        status: "completed",
        content: [
          expect.objectContaining({ type: "output_text", text: "Hello", annotations: [] }),
          expect.objectContaining({ type: "refusal", refusal: "No." }),
        ],
      }),
    ]);
  });

  it("a custom tool call: its string input decoded from the JSON arguments as they stream, escapes split across pieces; the SDK agrees", async () => {
    const writer = new ResponsesStreamEvents({ model: "m" });
    const text = [
      writer.start("m"),
      writer.customToolCall("call_1", "apply_patch"),
      writer.functionArguments('{"in'),
      writer.functionArguments('put": "*** Begin'),
      writer.functionArguments(" Patch\\"),
      writer.functionArguments("n\\u00"),
      writer.functionArguments('e9 \\"x\\""}'),
      writer.functionCall("call_2", "shell"),
      writer.functionArguments('{"command":["ls"]}'),
      writer.finish({ status: "completed" }, usage),
    ].join("");
    const events = payloads(text).filter((event) => String(event.type).startsWith("response.custom_tool_call_input"));
    expect(events.map((event) => event.delta ?? event.input)).toEqual(["*** Begin", " Patch", "\n", "é \"x\"", '*** Begin Patch\né "x"']);
    expect(events.at(-1)).toMatchObject({ type: "response.custom_tool_call_input.done", item_id: "ctc_call_1", output_index: 0 });
    const final = await ResponseStream.fromReadableStream(sdkReadable(text)).finalResponse();
    expect(final.output).toEqual([
      { id: "ctc_call_1", type: "custom_tool_call", status: "completed", call_id: "call_1", name: "apply_patch", input: '*** Begin Patch\né "x"' },
      expect.objectContaining({ id: "fc_call_2", type: "function_call", status: "completed", call_id: "call_2", name: "shell", arguments: '{"command":["ls"]}' }),
    ]);
  });

  it("custom tool arguments of another form are handed on whole at the end", () => {
    const writer = new ResponsesStreamEvents({ model: "m" });
    const text = [writer.start("m"), writer.customToolCall("c", "t"), writer.functionArguments('{"patch": "x"'), writer.functionArguments("}"), writer.finish({ status: "completed" }, usage)].join("");
    const events = payloads(text).filter((event) => String(event.type).startsWith("response.custom_tool_call_input"));
    expect(events.map((event) => [event.type, event.delta ?? event.input])).toEqual([
      ["response.custom_tool_call_input.delta", '{"patch": "x"}'],
      ["response.custom_tool_call_input.done", '{"patch": "x"}'],
    ]);
  });

  it("an upstream that ends with no content still gives a whole response", async () => {
    const writer = new ResponsesStreamEvents({ model: "m" });
    const text = writer.finish({ status: "incomplete", reason: "content_filter" }, null);
    expect(payloads(text).map((event) => event.type)).toEqual(["response.created", "response.in_progress", "response.incomplete"]);
    expect(writer.finish({ status: "completed" }, null)).toBe("");
    const final = await ResponseStream.fromReadableStream(sdkReadable(text)).finalResponse();
    expect(final).toMatchObject({ status: "incomplete", incomplete_details: { reason: "content_filter" }, output: [] });
  });
});
