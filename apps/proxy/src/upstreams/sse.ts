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

/** ASCII probes (`[DONE]`, `{"error"`, ...) as bytes, made once each. */
const PROBES = new Map<string, Buffer>();
function probeBytes(text: string): Buffer {
  let bytes = PROBES.get(text);
  if (bytes === undefined) {
    bytes = Buffer.from(text, "utf8");
    PROBES.set(text, bytes);
  }
  return bytes;
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
    const probe = probeBytes(prefix);
    if (whole && this.end - this.start !== probe.length) return false;
    return bytesStartWith(this.bytes, this.start, this.end, probe);
  }

  includes(text: string): boolean {
    return this.bytes.subarray(this.start, this.end).indexOf(probeBytes(text)) !== -1;
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
