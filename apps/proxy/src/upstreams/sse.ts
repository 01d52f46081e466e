import type { EventSourceMessage } from "eventsource-parser";

/** The one SSE frame writer. `event` is omitted for OpenAI chat chunks, which are unnamed. */
export function sseFrame(data: string, event?: string): string {
  return event ? `event: ${event}\ndata: ${data}\n\n` : `data: ${data}\n\n`;
}

/** Whether `bytes[at, end)` begins with `prefix`. A loop: for a few bytes, cheaper than a call into Buffer.compare. */
export function bytesStartWith(bytes: Buffer, at: number, end: number, prefix: Buffer): boolean {
  const length = prefix.length;
  if (end - at < length) return false;
  for (let index = 0; index < length; index += 1) if (bytes[at + index] !== prefix[index]) return false;
  return true;
}

/**
 * An ASCII probe (`[DONE]`, `{"error"`, `"usage":{`, ...) as bytes, with its Horspool skip table:
 * how far a search may move on when the byte under the probe's last position is a given one.
 */
interface Probe {
  bytes: Buffer;
  skip: Uint8Array;
}

/** Probes made once each. */
const PROBES = new Map<string, Probe>();
function probeOf(text: string): Probe {
  let probe = PROBES.get(text);
  if (probe === undefined) {
    const bytes = Buffer.from(text, "utf8");
    const skip = new Uint8Array(256).fill(Math.min(bytes.length, 255));
    for (let index = 0; index < bytes.length - 1; index += 1) skip[bytes[index]!] = Math.min(bytes.length - 1 - index, 255);
    probe = { bytes, skip };
    PROBES.set(text, probe);
  }
  return probe;
}

/**
 * Whether `bytes[start, end)` holds the probe (Horspool's search). A loop over the event's own
 * bytes: a native `indexOf` has no end bound, so it needs a subarray per event or scans the
 * chunk's later events too; this looks at about one byte in every probe length.
 */
function bytesInclude(bytes: Buffer, start: number, end: number, probe: Probe): boolean {
  const needle = probe.bytes;
  const last = needle.length - 1;
  if (last < 0) return true;
  const lastByte = needle[last]!;
  const skip = probe.skip;
  for (let at = start; at + last < end; ) {
    const byte = bytes[at + last]!;
    if (byte === lastByte) {
      let index = last - 1;
      while (index >= 0 && bytes[at + index] === needle[index]) index -= 1;
      if (index < 0) return true;
    }
    at += skip[byte]!;
  }
  return false;
}

/**
 * An event read straight from the upstream's bytes (relay/upstream-events.ts): its data stays
 * bytes until something asks for the text, so the events a tracker only looks at by name, or
 * probes with `dataIs` / `dataStartsWith` / `dataIncludes`, are never decoded.
 */
export class SseBytesEvent implements EventSourceMessage {
  readonly id = undefined;
  readonly event: string | undefined;
  private readonly bytes: Buffer;
  private readonly start: number;
  private readonly end: number;
  private text: string | undefined;

  constructor(event: string | undefined, bytes: Buffer, start: number, end: number) {
    this.event = event;
    this.bytes = bytes;
    this.start = start;
    this.end = end;
  }

  get data(): string {
    return (this.text ??= this.bytes.toString("utf8", this.start, this.end));
  }

  /** Whether the data begins with `prefix` (equals it, when `whole`). */
  startsWith(prefix: string, whole: boolean): boolean {
    const probe = probeOf(prefix).bytes;
    if (whole && this.end - this.start !== probe.length) return false;
    return bytesStartWith(this.bytes, this.start, this.end, probe);
  }

  includes(text: string): boolean {
    return bytesInclude(this.bytes, this.start, this.end, probeOf(text));
  }
}

/** Whether the event's data is exactly `text` (read from the bytes when the event came as bytes). */
export function dataIs(event: EventSourceMessage, text: string): boolean {
  return event instanceof SseBytesEvent ? event.startsWith(text, true) : event.data === text;
}

export function dataStartsWith(event: EventSourceMessage, prefix: string): boolean {
  return event instanceof SseBytesEvent ? event.startsWith(prefix, false) : event.data.startsWith(prefix);
}

export function dataIncludes(event: EventSourceMessage, text: string): boolean {
  return event instanceof SseBytesEvent ? event.includes(text) : event.data.includes(text);
}
