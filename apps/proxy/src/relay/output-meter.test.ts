import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import { encode as encodeCl100k } from "gpt-tokenizer/encoding/cl100k_base";
import { WIRE_FORMATS } from "../shapes/wire-formats.ts";
import { countPreTokens } from "../tokens/pre-tokens.ts";
import { TokenCounterPool, type TextTokenCounter } from "../tokens/token-counter-pool.ts";
import { countTextTokens, type EncodingName } from "../tokens/count-tokens.ts";
import { OutputMeter, type MeterLog } from "./output-meter.ts";

const pool = new TokenCounterPool({ threads: 1, maxQueued: 64 });
afterAll(() => pool.close());

/** The pool's count, done in this thread (a property runs many; the pool's own test checks they agree). */
const inProcess: TextTokenCounter = { countText: (text: string, encoding: EncodingName) => countTextTokens(text, encoding) };

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

function meterFor(shape: StreamShape, model = "gpt-4o-mini", counter: TextTokenCounter | null = inProcess, log: MeterLog | null = null): OutputMeter {
  const wire = WIRE_FORMATS[shape];
  return new OutputMeter(wire.createStreamTracker(wire.parse({ model: "m", max_tokens: 10, messages: [{ role: "user", content: "hi" }], stream: true })), model, counter, log, "req_1");
}

const word = fc.stringMatching(/^[a-zA-Z]{1,12}$/);
const piece = fc.oneof(word.map((text) => ` ${text}`), fc.constantFrom(" émigré", " 東京", "\n", " 🙂", ' "quoted"'));
const shape = fc.constantFrom<StreamShape>("messages", "chat.completions", "responses");

describe("OutputMeter", () => {
  it("settles on the family's tokenizer count of the relayed output text, wherever the upstream's chunks are cut", async () => {
    await fc.assert(
      fc.asyncProperty(shape, fc.array(piece, { maxLength: 60 }), fc.array(fc.nat(), { maxLength: 12 }), async (kind, pieces, cuts) => {
        const meter = meterFor(kind);
        for (const chunk of chunksOf(upstreamStream(kind, pieces), cuts)) meter.add(chunk);
        // The settled count: exactly the tokenizer's count of the text the client got.
        expect(await meter.settledOutputTokens()).toBe(encode(pieces.join("")).length);
      }),
    );
  });

  it("counts on the token counter pool's thread when given the pool", async () => {
    const text = [" Counted", " off", " the", " main", " thread", " émigré", " 東京", " 🙂"];
    const meter = meterFor("messages", "gpt-4o", pool);
    meter.add(Buffer.from(upstreamStream("messages", text)));
    expect(await meter.settledOutputTokens()).toBe(encode(text.join("")).length);
  });

  it("counts incrementally: asked between chunks (the journal's checkpoints), the output's pre-token count, never more than its tokens", () => {
    fc.assert(
      fc.property(shape, fc.array(piece, { maxLength: 60 }), fc.array(fc.nat(), { maxLength: 12 }), (kind, pieces, cuts) => {
        const meter = meterFor(kind);
        const stream = upstreamStream(kind, pieces);
        let last = 0;
        for (const chunk of chunksOf(stream, cuts)) {
          meter.add(chunk);
          const now = meter.outputTokens;
          expect(now).toBeGreaterThanOrEqual(last);
          last = now;
        }
        const whole = pieces.join("");
        expect(last).toBe(countPreTokens(whole, "o200k_base"));
        expect(last).toBeLessThanOrEqual(encode(whole).length);
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

  it("settles on the pre-token count, and says so, when the exact count cannot be had; never on less", async () => {
    const warned: Array<Record<string, unknown>> = [];
    const log: MeterLog = { warn: (fields) => warned.push(fields) };
    const refusing: TextTokenCounter = { countText: () => Promise.reject(new Error("Token counting is busy; try again shortly.")) };
    const text = [" Hello", " there", ",", " 東京", " 🙂", "\n"];
    const meter = meterFor("responses", "gpt-4o", refusing, log);
    meter.add(Buffer.from(upstreamStream("responses", text)));
    const floor = countPreTokens(text.join(""), "o200k_base");
    expect(await meter.settledOutputTokens()).toBe(floor);
    expect(warned).toMatchObject([{ requestId: "req_1", outputTokens: floor, reason: "Token counting is busy; try again shortly." }]);
    // A counter that answers less than the pre-token count is not believed.
    const low = meterFor("responses", "gpt-4o", { countText: () => Promise.resolve(1) });
    low.add(Buffer.from(upstreamStream("responses", text)));
    expect(await low.settledOutputTokens()).toBe(floor);
    // No output: nothing to count, the pool is not asked.
    const empty = meterFor("responses", "gpt-4o", refusing, log);
    empty.add(Buffer.from(upstreamStream("responses", [])));
    expect(await empty.settledOutputTokens()).toBe(0);
    expect(warned).toHaveLength(1);
  });

  it("keeps no more than its bound of relayed bytes: a long stream is read as it goes", async () => {
    const meter = meterFor("chat.completions");
    const chunk = Buffer.from(upstreamStream("chat.completions", Array.from({ length: 50 }, () => " word")));
    for (let index = 0; index < 200; index += 1) meter.add(chunk);
    const kept = (meter as unknown as { keptBytes: number }).keptBytes;
    expect(kept).toBeLessThan(64 * 1024);
    expect(meter.outputTokens).toBe(200 * 50);
    expect(await meter.settledOutputTokens()).toBe(200 * 50);
  });
});
