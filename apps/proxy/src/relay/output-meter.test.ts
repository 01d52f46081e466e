import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import { encode as encodeCl100k } from "gpt-tokenizer/encoding/cl100k_base";
import { WIRE_FORMATS } from "../upstreams/index.ts";
import { OutputMeter } from "./output-meter.ts";

type StreamShape = "messages" | "chat.completions" | "responses";

/** A stream of `pieces` in each upstream shape, as its upstream writes it, final usage left out. */
function upstreamStream(shape: StreamShape, pieces: readonly string[]): string {
  const frame = (data: unknown, event?: string) => `${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`;
  if (shape === "messages") {
    return (
      frame({ type: "message_start", message: { id: "m", usage: { input_tokens: 9, output_tokens: 1 } } }, "message_start") +
      frame({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }, "content_block_start") +
      pieces.map((text) => frame({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text } }, "content_block_delta")).join("")
    );
  }
  if (shape === "chat.completions") {
    return pieces.map((content) => frame({ id: "c", object: "chat.completion.chunk", choices: [{ index: 0, delta: { content } }], usage: null })).join("");
  }
  return (
    frame({ type: "response.created", sequence_number: 0, response: { id: "r" } }, "response.created") +
    pieces.map((delta, index) => frame({ type: "response.output_text.delta", sequence_number: index + 1, item_id: "i", output_index: 0, content_index: 0, delta }, "response.output_text.delta")).join("")
  );
}

/** The stream's bytes cut at the given places, as an upstream's chunks may come. */
function chunksOf(text: string, cuts: readonly number[]): Buffer[] {
  const bytes = Buffer.from(text);
  const at = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let start = 0;
  for (const cut of [...at, bytes.length]) {
    if (cut > start) chunks.push(bytes.subarray(start, cut));
    start = Math.max(start, cut);
  }
  return chunks;
}

function meterFor(shape: StreamShape, model = "gpt-4o-mini"): OutputMeter {
  const wire = WIRE_FORMATS[shape];
  return new OutputMeter(wire.createStreamTracker(wire.parse({ model: "m", max_tokens: 10, messages: [{ role: "user", content: "hi" }], stream: true })), model);
}

const word = fc.stringMatching(/^[a-zA-Z]{1,12}$/);
const piece = fc.oneof(word.map((text) => ` ${text}`), fc.constantFrom(" émigré", " 東京", "\n", " 🙂", ' "quoted"'));
const shape = fc.constantFrom<StreamShape>("messages", "chat.completions", "responses");

describe("OutputMeter", () => {
  it("counts the relayed output text with the family's tokenizer, wherever the upstream's chunks are cut", async () => {
    await meterFor("messages").settledOutputTokens();
    fc.assert(
      fc.property(shape, fc.array(piece, { maxLength: 60 }), fc.array(fc.nat(), { maxLength: 12 }), (kind, pieces, cuts) => {
        const meter = meterFor(kind);
        for (const chunk of chunksOf(upstreamStream(kind, pieces), cuts)) meter.add(chunk);
        // One count over all of it: exactly the tokenizer's count of the text the client got.
        expect(meter.outputTokens).toBe(encode(pieces.join("")).length);
      }),
    );
  });

  it("counts incrementally: asked between chunks (the journal's checkpoints), never fewer tokens than the text holds", () => {
    fc.assert(
      fc.property(shape, fc.array(piece, { maxLength: 60 }), fc.array(fc.nat(), { maxLength: 12 }), (kind, pieces, cuts) => {
        const meter = meterFor(kind);
        let last = 0;
        for (const chunk of chunksOf(upstreamStream(kind, pieces), cuts)) {
          meter.add(chunk);
          const now = meter.outputTokens;
          expect(now).toBeGreaterThanOrEqual(last);
          last = now;
        }
        expect(last).toBeGreaterThanOrEqual(encode(pieces.join("")).length);
      }),
    );
  });

  it("counts with the model family's own tokenizer (gpt-4: cl100k_base)", async () => {
    const text = [" Tokenizers", " differ", " on", " émigré", " 東京", " 🙂"];
    const meter = meterFor("chat.completions", "gpt-4");
    meter.add(Buffer.from(upstreamStream("chat.completions", text)));
    expect(await meter.settledOutputTokens()).toBe(encodeCl100k(text.join("")).length);
    expect(encodeCl100k(text.join("")).length).not.toBe(encode(text.join("")).length);
  });

  it("keeps no more than its bound of relayed bytes: a long stream is counted as it goes", () => {
    const meter = meterFor("chat.completions");
    const chunk = Buffer.from(upstreamStream("chat.completions", Array.from({ length: 50 }, () => " word")));
    for (let index = 0; index < 200; index += 1) meter.add(chunk);
    const kept = (meter as unknown as { keptBytes: number }).keptBytes;
    expect(kept).toBeLessThan(64 * 1024);
    expect(meter.outputTokens).toBe(200 * 50);
  });
});
