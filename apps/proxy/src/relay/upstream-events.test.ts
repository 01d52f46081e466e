import { createParser, type EventSourceMessage } from "eventsource-parser";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { dataEndsWith, dataIncludes, dataIs, dataStartsWith, Probe, SseBytesEvent } from "../core/sse.ts";
import { ClientChunk, UpstreamEvents } from "./upstream-events.ts";

interface Seen {
  event: string | undefined;
  data: string;
  id: string | undefined;
  raw: string | null;
}

/** What eventsource-parser makes of the whole stream at once: the reference. */
function reference(stream: Buffer): Omit<Seen, "raw">[] {
  const events: Omit<Seen, "raw">[] = [];
  const parser = createParser({ onEvent: (event) => events.push({ event: event.event, data: event.data, id: event.id }) });
  parser.feed(new TextDecoder().decode(stream));
  return events;
}

function scan(chunks: Buffer[]): Seen[] {
  const seen: Seen[] = [];
  const events = new UpstreamEvents((event, raw, bytes, start, end) => {
    seen.push({ event: event.event, data: event.data, id: event.id, raw: raw ? bytes.toString("utf8", start, end) : null });
  });
  for (const chunk of chunks) events.push(chunk);
  return seen;
}

function cut(stream: Buffer, at: number[]): Buffer[] {
  const points = [...new Set(at.map((point) => point % (stream.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let from = 0;
  for (const point of [...points, stream.length]) {
    chunks.push(stream.subarray(from, point));
    from = point;
  }
  return chunks;
}

// Lines as upstreams write them, and as they may: names and data with and without the space after
// the colon, JSON with multi-byte text, ids, comments, retries, unknown fields, empty values.
const value = fc.oneof(
  fc.constantFrom("", "[DONE]", '{"usage":{"prompt_tokens":3}}', '{"error":{"message":"x"}}', "héllo ✓ 🙂", " leading space"),
  fc.string({ maxLength: 12 }).map((text) => text.replace(/[\r\n]/g, "")),
);
const line = fc.oneof(
  { weight: 6, arbitrary: value.map((text) => `data: ${text}`) },
  { weight: 2, arbitrary: value.map((text) => `data:${text}`) },
  { weight: 3, arbitrary: fc.constantFrom("message_start", "content_block_delta", "ping", "", "é").map((name) => `event: ${name}`) },
  { weight: 1, arbitrary: fc.constantFrom("event:error", "id: 7", "id:", ": keep-alive", ":", "retry: 100", "data", "event", "other: x", "dataX: 1", "\uFEFFdata: mark") },
);
const block = fc.array(line, { minLength: 0, maxLength: 3 });
const stream = fc.record({
  blocks: fc.array(block, { maxLength: 12 }),
  ending: fc.constantFrom("\n", "\n", "\n", "\r\n", "\r"),
  /** Blocks before this one end their lines with LF whatever `ending` is (a stream that turns to CR midway). */
  endingFrom: fc.nat({ max: 12 }),
  bom: fc.boolean(),
  tail: fc.constantFrom("", "data: cut", "event: x\n"),
});

function text(spec: { blocks: string[][]; ending: string; endingFrom: number; bom: boolean; tail: string }): Buffer {
  const ending = (index: number) => (index < spec.endingFrom ? "\n" : spec.ending);
  const body = spec.blocks.map((lines, index) => lines.map((one) => one + ending(index)).join("") + ending(index)).join("") + spec.tail;
  return Buffer.from((spec.bom ? "\uFEFF" : "") + body, "utf8");
}

describe("UpstreamEvents", () => {
  it("gives eventsource-parser's events for any stream, however it is cut (bytes or text)", () => {
    fc.assert(
      fc.property(stream, fc.array(fc.nat(), { maxLength: 8 }), (spec, at) => {
        const bytes = text(spec);
        const seen = scan(cut(bytes, at));
        expect(seen.map(({ event, data, id }) => ({ event, data, id }))).toEqual(reference(bytes));
      }),
      { numRuns: 2000 },
    );
  });

  it("an event given with its bytes is exactly what those bytes say, and plain streams come as bytes", () => {
    fc.assert(
      fc.property(stream, fc.array(fc.nat(), { maxLength: 8 }), (spec, at) => {
        const bytes = text(spec);
        for (const one of scan(cut(bytes, at))) {
          if (one.raw === null) continue;
          expect(one.raw.endsWith("\n\n") || one.raw.endsWith("\r\n\r\n")).toBe(true);
          expect(reference(Buffer.from(one.raw))).toEqual([{ event: one.event, data: one.data, id: undefined }]);
        }
        // LF line ends, no BOM, blocks of an optional name line and one data line: nothing re-parsed.
        const plain = (spec.ending === "\n" || spec.endingFrom >= spec.blocks.length) && !spec.bom && spec.blocks.every((lines) => lines.length > 0 && /^data:/.test(lines.at(-1)!) && lines.slice(0, -1).every((one) => /^event: ./.test(one)) && lines.length <= 2);
        if (plain) expect(scan(cut(bytes, at)).every((one) => one.raw !== null)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it("the events of a chunk read as bytes point into it, blank line included", () => {
    const chunk = Buffer.from('data: {"a":1}\n\nevent: ping\ndata: {}\n\ndata: {"b"');
    const seen: Array<[string | undefined, string]> = [];
    const events = new UpstreamEvents((event, raw, bytes, start, end) => seen.push([event.event, raw ? bytes.toString("utf8", start, end) : ""]));
    events.push(chunk);
    expect(seen).toEqual([
      [undefined, 'data: {"a":1}\n\n'],
      ["ping", "event: ping\ndata: {}\n\n"],
    ]);
    events.push(Buffer.from(":2}\n"));
    events.push(Buffer.from("\n"));
    expect(seen.at(-1)).toEqual([undefined, 'data: {"b":2}\n\n']);
  });

  it("drops a byte-order mark only at the stream's start, whichever way the block is read", () => {
    const streams = [
      "\uFEFFdata: a\n\n",
      "\uFEFF\uFEFFdata: a\n\n",
      "data: a\n\n\uFEFFdata: b\n\n",
      "data: a\n\n\uFEFFdata: b\r\n\r\n",
      "data: a\n\n\uFEFF: c\r\ndata: b\r\n\r\n",
      "\uFEFFdata: a\r\n\r\n",
      "\uFEFF\uFEFFdata: a\r\n\r\n",
    ];
    for (const one of streams) {
      const bytes = Buffer.from(one);
      for (let at = 0; at <= bytes.length; at += 1) {
        expect(scan([bytes.subarray(0, at), bytes.subarray(at)]).map(({ event, data, id }) => ({ event, data, id }))).toEqual(reference(bytes));
      }
    }
  });

  it("reads a stream whose lines all end with CRLF (Google's) as bytes, however it is cut", () => {
    const chunks = [
      '{"candidates":[{"content":{"parts":[{"text":"Hel"}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":3}}',
      '{"candidates":[{"content":{"parts":[{"text":"lo ✓"}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":2}}',
    ];
    const bytes = Buffer.from(chunks.map((data) => `data: ${data}\r\n\r\n`).join(""));
    for (let at = 0; at <= bytes.length; at += 1) {
      for (const step of [1, 7, 64]) {
        const pieces = [bytes.subarray(0, at), ...cut(bytes.subarray(at), Array.from({ length: 40 }, (_, index) => index * step))];
        const seen = scan(pieces);
        expect(seen.map((one) => one.data)).toEqual(chunks);
        expect(seen.map((one) => one.raw)).toEqual(chunks.map((data) => `data: ${data}\r\n\r\n`));
      }
    }
    // A LF without its CR later on: the rest of the stream is read as text, as before.
    expect(scan([Buffer.from("data: a\r\n\r\n"), Buffer.from("data: b\n\ndata: c\r\n\r\n")]).map((one) => [one.data, one.raw])).toEqual([
      ["a", "data: a\r\n\r\n"],
      ["b", null],
      ["c", null],
    ]);
  });

  it("a CR anywhere moves the rest of the stream, pending bytes included, to the text parser", () => {
    const seen = scan([Buffer.from("data: a\n\ndata: b"), Buffer.from("\r\n\r\ndata: c\n\n")]);
    expect(seen).toEqual([
      { event: undefined, data: "a", id: undefined, raw: "data: a\n\n" },
      { event: undefined, data: "b", id: undefined, raw: null },
      { event: undefined, data: "c", id: undefined, raw: null },
    ]);
  });
});

describe("SseBytesEvent probes", () => {
  it("answer as the same questions on the decoded data do", () => {
    const probes = fc.constantFrom("[DONE]", '{"error"', '"usage":{', '"usage":null}', "é", "").map((text) => new Probe(text));
    fc.assert(
      fc.property(value, probes, fc.string({ maxLength: 4 }), (data, probe, pad) => {
        const bytes = Buffer.from(`${pad}${data}${pad}`);
        const start = Buffer.byteLength(pad);
        const event = new SseBytesEvent(undefined, bytes, start, start + Buffer.byteLength(data));
        const decoded: EventSourceMessage = { data };
        expect(dataIs(event, probe)).toBe(dataIs(decoded, probe));
        expect(dataStartsWith(event, probe)).toBe(dataStartsWith(decoded, probe));
        expect(dataIncludes(event, probe)).toBe(dataIncludes(decoded, probe));
        expect(dataEndsWith(event, probe)).toBe(dataEndsWith(decoded, probe));
        expect(event.data).toBe(data);
      }),
      { numRuns: 1000 },
    );
  });

  it("find a probe only inside the event's own bytes, wherever it sits and however it overlaps itself", () => {
    // Data and the bytes around it made of pieces of the probes, so that whole probes, near misses,
    // self-overlaps ("aab" in "aaab") and probes cut by the event's bounds all come up often.
    const probes = ["[DONE]", '{"error"', '"usage":{', '"usage":null}', "aab", "é"];
    const piece = fc.constantFrom(...probes, '"usage":', '"usage"', "usage", ":{", "{", "null}", "}", '"', "a", "aa", "b", "x");
    const run = fc.array(piece, { maxLength: 8 }).map((pieces) => pieces.join(""));
    fc.assert(
      fc.property(run, run, run, fc.constantFrom(...probes), (before, data, after, text) => {
        const bytes = Buffer.from(`${before}${data}${after}`);
        const start = Buffer.byteLength(before);
        const event = new SseBytesEvent(undefined, bytes, start, start + Buffer.byteLength(data));
        const probe = new Probe(text);
        expect(dataIncludes(event, probe)).toBe(data.includes(text));
        expect(dataStartsWith(event, probe)).toBe(data.startsWith(text));
        expect(dataEndsWith(event, probe)).toBe(data.endsWith(text));
      }),
      { numRuns: 3000 },
    );
  });
});

describe("ClientChunk", () => {
  it("keeps the order; adjacent bytes of one buffer are one piece, adjacent frames one string", () => {
    const bytes = Buffer.from("AABBCCDD");
    const chunk = new ClientChunk();
    expect(chunk.empty).toBe(true);
    chunk.raw(bytes, 0, 2);
    chunk.raw(bytes, 2, 4);
    chunk.frame("x");
    chunk.frame("");
    chunk.frame("y");
    chunk.raw(bytes, 6, 8);
    expect(chunk.empty).toBe(false);
    expect(chunk.take().map((piece) => piece.toString())).toEqual(["AABB", "xy", "DD"]);
    expect(chunk.empty).toBe(true);
    chunk.raw(bytes, 0, 8);
    const [whole] = chunk.take();
    expect(whole).toBe(bytes);
  });
});
