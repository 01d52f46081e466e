import { describe, expect, it } from "vitest";
import { ResponseStream } from "openai/lib/responses/ResponseStream";
import { payloads, sdkReadable } from "../__fixtures__/fixtures.ts";
import { REDACTED_THINKING_PREFIX } from "./output-items.ts";
import { ResponsesStreamWriter } from "./stream-writer.ts";

const usage = { inputTokens: 10, outputTokens: 5, cachedInputTokens: 0, cacheWriteTokens: 0, cacheWrite1hTokens: 0, reasoningTokens: 0, images: 0, webSearchRequests: 0 };

describe("ResponsesStreamWriter", () => {
  it("reasoning, redacted reasoning, text then refusal parts in one message item: each in order, the SDK agrees", async () => {
    const writer = new ResponsesStreamWriter({ model: "m" });
    const text = [
      writer.start("m"),
      writer.startReasoning(),
      writer.reasoning("Think"),
      writer.reasoning("ing."),
      writer.reasoningSignature("sig"),
      writer.redactedReasoning("opaque"),
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

  it("an upstream that ends with no content still gives a whole response", async () => {
    const writer = new ResponsesStreamWriter({ model: "m" });
    const text = writer.finish({ status: "incomplete", reason: "content_filter" }, null);
    expect(payloads(text).map((event) => event.type)).toEqual(["response.created", "response.in_progress", "response.incomplete"]);
    expect(writer.finish({ status: "completed" }, null)).toBe("");
    const final = await ResponseStream.fromReadableStream(sdkReadable(text)).finalResponse();
    expect(final).toMatchObject({ status: "incomplete", incomplete_details: { reason: "content_filter" }, output: [] });
  });
});
