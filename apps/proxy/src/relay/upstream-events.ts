import { TextDecoder } from "node:util";
import { createParser, type EventSourceMessage, type EventSourceParser } from "eventsource-parser";
import { bytesStartWith, SseBytesEvent } from "../core/sse.ts";

const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const DATA = Buffer.from("data:");
/** A blank line in a stream that ends its lines with CRLF (Google's servers: `data: {...}\r\n\r\n`). */
const CRLF_BLANK = Buffer.from("\r\n\r\n");
const EVENT = Buffer.from("event:");

/**
 * Receives each upstream event. `raw` is true when the event came as one plain block (an optional
 * `event:` line, one `data:` line, the blank line): then `bytes[start, end)` are its own bytes,
 * blank line included, and relaying them is relaying the event exactly. Otherwise (a block with an
 * id, a comment, several data lines, a byte-order mark; a stream with CR line ends) the event was
 * parsed from text and only its frame can be written. A stream whose every line ends with CRLF
 * (Google's) is read as bytes too, its events' bytes ending with CRLF CRLF.
 */
export type EventSink = (event: EventSourceMessage, raw: boolean, bytes: Buffer, start: number, end: number) => void;

const NO_BYTES = Buffer.alloc(0);

/** Event names already read (a shape has a handful), shared by every stream so each is decoded once. */
interface EventName {
  bytes: Buffer;
  text: string;
}
const NAMES: EventName[] = [];
const MAX_NAMES = 64;
/** The name last read: a stream's events mostly repeat one (`content_block_delta`), tried first. */
let lastName: EventName | null = null;

function sameName(name: EventName, bytes: Buffer, start: number, end: number): boolean {
  return name.bytes.length === end - start && bytesStartWith(bytes, start, end, name.bytes);
}

function eventName(bytes: Buffer, start: number, end: number): string | undefined {
  if (end <= start) return undefined;
  if (lastName !== null && sameName(lastName, bytes, start, end)) return lastName.text;
  for (const name of NAMES) {
    if (sameName(name, bytes, start, end)) {
      lastName = name;
      return name.text;
    }
  }
  const text = bytes.toString("utf8", start, end);
  if (NAMES.length < MAX_NAMES) NAMES.push((lastName = { bytes: Buffer.from(bytes.subarray(start, end)), text }));
  return text;
}

/**
 * Splits an upstream event stream into its events from the bytes as they come: a block between
 * blank lines that is one plain event becomes an `SseBytesEvent` without decoding anything (its data
 * is decoded only if a tracker or translator asks for it); any other block is decoded and given to
 * eventsource-parser, which reads it by the SSE rules. A stream whose lines all end with CRLF is
 * split the same way at CRLF CRLF (shared/design/neutral-core.md section 6 item 8); one that uses
 * CR line ends otherwise (a lone CR, a LF without its CR) is read as text from there on, all of it
 * by eventsource-parser. Either way the events and their data are
 * eventsource-parser's (upstream-events.test.ts checks it on random streams cut at random places).
 */
export class UpstreamEvents {
  private readonly sink: EventSink;
  /** Bytes after the last blank line, waiting for the rest of their block. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private bytesLevel = true;
  /** Every line so far ended with CRLF: blocks end at CRLF CRLF. */
  private crlf = false;
  /** Whether a block was read already: then the stream's start, where a byte-order mark is dropped, is behind. */
  private consumed = false;
  private parser: EventSourceParser | null = null;
  private decoder: TextDecoder | null = null;

  constructor(sink: EventSink) {
    this.sink = sink;
  }

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    if (!this.bytesLevel) {
      this.feedText(chunk);
      return;
    }
    if (this.crlf || chunk.includes(CR)) {
      const rest = this.pendingBytes > 0 ? Buffer.concat([...this.pending, chunk]) : chunk;
      this.pending = [];
      this.pendingBytes = 0;
      if (crlfLines(rest)) {
        this.crlf = true;
        this.pushCrlf(rest);
        return;
      }
      // From here on, text: what is pending was never given to the parser.
      this.bytesLevel = false;
      this.feedText(rest);
      return;
    }
    if (this.pendingBytes > 0 && !chunk.includes(LF)) {
      // Still inside one block: keep the pieces, join them once its end comes.
      this.pending.push(chunk);
      this.pendingBytes += chunk.length;
      return;
    }
    const bytes = this.pendingBytes > 0 ? Buffer.concat([...this.pending, chunk]) : chunk;
    // Line by line, one search for a line feed per line (a byte search, cheaper than a search for
    // the blank line's two bytes): a line feed followed by another ends the block.
    let start = 0;
    let at = 0;
    let firstLineEnd = -1;
    let lines = 1;
    for (let lf = bytes.indexOf(LF, at); lf !== -1 && lf + 1 < bytes.length; lf = bytes.indexOf(LF, at)) {
      if (bytes[lf + 1] === LF) {
        if (lf > start) this.block(bytes, start, lf, firstLineEnd, lines);
        start = at = lf + 2;
        firstLineEnd = -1;
        lines = 1;
        this.consumed = true;
      } else {
        if (firstLineEnd === -1) firstLineEnd = lf;
        lines += 1;
        at = lf + 1;
      }
    }
    if (start < bytes.length) {
      this.pending = [start === 0 ? bytes : bytes.subarray(start)];
      this.pendingBytes = bytes.length - start;
    } else if (this.pendingBytes > 0) {
      this.pending = [];
      this.pendingBytes = 0;
    }
  }

  /**
   * One block `bytes[start, end)`, its blank line just after `end`, of `lines` lines, the first
   * ending at `firstLineEnd` when there are more. A plain event is one `data:` line, or an
   * `event:` line and a `data:` line.
   */
  private block(bytes: Buffer, start: number, end: number, firstLineEnd: number, lines: number): void {
    let line = start;
    let name: string | undefined;
    if (bytesStartWith(bytes, line, end, EVENT)) {
      if (lines !== 2) return this.textBlock(bytes, start, end);
      name = eventName(bytes, line + (bytes[line + 6] === SPACE ? 7 : 6), firstLineEnd);
      line = firstLineEnd + 1;
    } else if (lines !== 1) {
      return this.textBlock(bytes, start, end);
    }
    if (!bytesStartWith(bytes, line, end, DATA)) return this.textBlock(bytes, start, end);
    const dataStart = Math.min(line + (bytes[line + 5] === SPACE ? 6 : 5), end);
    this.sink(new SseBytesEvent(name, bytes, dataStart, end), true, bytes, start, end + 2);
  }

  /** The blocks of a CRLF stream (`bytes`: what was pending and the new chunk), the rest kept pending. */
  private pushCrlf(bytes: Buffer): void {
    let start = 0;
    for (let at = bytes.indexOf(CRLF_BLANK, start); at !== -1; at = bytes.indexOf(CRLF_BLANK, start)) {
      if (at > start) this.crlfBlock(bytes, start, at);
      start = at + 4;
      this.consumed = true;
    }
    if (start < bytes.length) {
      this.pending = [start === 0 ? bytes : bytes.subarray(start)];
      this.pendingBytes = bytes.length - start;
    }
  }

  /** One block `bytes[start, end)` of a CRLF stream, its CRLF CRLF just after `end`: a plain event is one `data:` line. */
  private crlfBlock(bytes: Buffer, start: number, end: number): void {
    const lineEnd = bytes.indexOf(CR, start);
    if ((lineEnd !== -1 && lineEnd < end) || !bytesStartWith(bytes, start, end, DATA)) return this.textBlock(bytes, start, end, 4);
    const dataStart = Math.min(start + (bytes[start + 5] === SPACE ? 6 : 5), end);
    this.sink(new SseBytesEvent(undefined, bytes, dataStart, end), true, bytes, start, end + 4);
  }

  /** A block that is not one plain event: read by the SSE rules (it ends at a blank line, so the parser starts clean after it). */
  private textBlock(bytes: Buffer, start: number, end: number, blank = 2): void {
    // The stream's first block is decoded as the whole stream would be: a leading byte-order mark dropped.
    const text = this.consumed ? bytes.toString("utf8", start, end + blank) : new TextDecoder().decode(bytes.subarray(start, end + blank));
    this.textParser().feed(text);
  }

  private feedText(chunk: Buffer): void {
    this.decoder ??= new TextDecoder("utf-8", { ignoreBOM: this.consumed });
    this.textParser().feed(this.decoder.decode(chunk, { stream: true }));
  }

  private textParser(): EventSourceParser {
    if (this.parser === null) {
      this.parser = createParser({ onEvent: (event) => this.sink(event, false, NO_BYTES, 0, 0) });
      // Past the stream's start a byte-order mark is text: a blank line ends the parser's look for one.
      if (this.consumed) this.parser.feed("\n");
    }
    return this.parser;
  }
}

/**
 * Whether every line end in `bytes` is a CRLF: each CR followed by its LF (or last, its LF still to
 * come), each LF after its CR. `bytes` starts after a blank line, or at the stream's start.
 */
function crlfLines(bytes: Buffer): boolean {
  for (let cr = bytes.indexOf(CR); cr !== -1; cr = bytes.indexOf(CR, cr + 1)) if (cr + 1 < bytes.length && bytes[cr + 1] !== LF) return false;
  for (let lf = bytes.indexOf(LF); lf !== -1; lf = bytes.indexOf(LF, lf + 1)) if (lf === 0 || bytes[lf - 1] !== CR) return false;
  return true;
}

/**
 * What one upstream chunk gives the client: runs of the upstream's own bytes (consecutive events
 * relayed as they came) and frames (events changed, translated or made), in order. Consecutive
 * bytes of one buffer are one piece; consecutive frames are one string.
 */
export class ClientChunk {
  private pieces: Array<Buffer | string> = [];
  private runBytes: Buffer | null = null;
  private runStart = 0;
  private runEnd = 0;
  private frames = "";

  get empty(): boolean {
    return this.pieces.length === 0 && this.runBytes === null && this.frames === "";
  }

  raw(bytes: Buffer, start: number, end: number): void {
    if (this.frames !== "") this.endFrames();
    if (this.runBytes === bytes && this.runEnd === start) {
      this.runEnd = end;
      return;
    }
    this.endRun();
    this.runBytes = bytes;
    this.runStart = start;
    this.runEnd = end;
  }

  frame(frame: string): void {
    if (frame === "") return;
    this.endRun();
    this.frames += frame;
  }

  /** The pieces to write, in order; the chunk is empty again after. */
  take(): Array<Buffer | string> {
    this.endRun();
    this.endFrames();
    const pieces = this.pieces;
    this.pieces = [];
    return pieces;
  }

  private endRun(): void {
    const bytes = this.runBytes;
    if (bytes === null) return;
    this.pieces.push(this.runStart === 0 && this.runEnd === bytes.length ? bytes : bytes.subarray(this.runStart, this.runEnd));
    this.runBytes = null;
  }

  private endFrames(): void {
    if (this.frames === "") return;
    this.pieces.push(this.frames);
    this.frames = "";
  }
}
