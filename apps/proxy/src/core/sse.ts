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
 * A text an event's data is tested against (`[DONE]`, `{"error"`, `"usage":{`, ...), as bytes, with
 * its Horspool skip table: how far a search may move on when the byte under the probe's last
 * position is a given one. Made once, where the tracker that asks is defined: a test per event then
 * costs no lookup, only the comparison.
 */
export class Probe {
  readonly text: string;
  readonly bytes: Buffer;
  readonly skip: Uint8Array;

  constructor(text: string) {
    this.text = text;
    this.bytes = Buffer.from(text, "utf8");
    const bytes = this.bytes;
    this.skip = new Uint8Array(256).fill(Math.min(bytes.length, 255));
    for (let index = 0; index < bytes.length - 1; index += 1) this.skip[bytes[index]!] = Math.min(bytes.length - 1 - index, 255);
  }
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
  startsWith(prefix: Probe, whole: boolean): boolean {
    const probe = prefix.bytes;
    if (whole && this.end - this.start !== probe.length) return false;
    return bytesStartWith(this.bytes, this.start, this.end, probe);
  }

  endsWith(suffix: Probe): boolean {
    const probe = suffix.bytes;
    const at = this.end - probe.length;
    return at >= this.start && bytesStartWith(this.bytes, at, this.end, probe);
  }

  includes(probe: Probe): boolean {
    return bytesInclude(this.bytes, this.start, this.end, probe);
  }
}

/** Whether the event's data is exactly the probe's text (read from the bytes when the event came as bytes). */
export function dataIs(event: EventSourceMessage, probe: Probe): boolean {
  return event instanceof SseBytesEvent ? event.startsWith(probe, true) : event.data === probe.text;
}

export function dataStartsWith(event: EventSourceMessage, prefix: Probe): boolean {
  return event instanceof SseBytesEvent ? event.startsWith(prefix, false) : event.data.startsWith(prefix.text);
}

export function dataEndsWith(event: EventSourceMessage, suffix: Probe): boolean {
  return event instanceof SseBytesEvent ? event.endsWith(suffix) : event.data.endsWith(suffix.text);
}

export function dataIncludes(event: EventSourceMessage, probe: Probe): boolean {
  return event instanceof SseBytesEvent ? event.includes(probe) : event.data.includes(probe.text);
}
