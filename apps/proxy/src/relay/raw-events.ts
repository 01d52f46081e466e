const CR = 0x0d;
const BLANK_LINE = "\n\n";

/** What to write for one chunk: the upstream's bytes of its first events, then (when one changed) the frames from the first changed event on. */
export interface RawPlan {
  /** The upstream's own bytes of the events before the first one that changed (null: none). */
  raw: Buffer | null;
  /** Whether an event changed: then its frames and all after it follow the raw bytes. */
  changed: boolean;
}

/**
 * The upstream's bytes of the whole events in the chunk just read, for relaying them as they came.
 * Events end at a blank line; whatever follows the last one waits for the next chunk. When an event
 * of the chunk is changed or left out for the client, the events before it still go out as their
 * bytes, and the frames from it on are written, provided every blank-line block of the chunk was
 * exactly one event (a comment or a block without data is not one: then the frames are written).
 * A stream with CR line endings is always re-framed (its boundaries are not looked for here).
 */
export class RawEvents {
  private enabled: boolean;
  private pending: Buffer | null = null;
  private whole: Buffer | null = null;
  /** Events the parser gave for this chunk. */
  private events = 0;
  /** The first changed event of this chunk (-1: none). */
  private firstChanged = -1;

  constructor(enabled: boolean) {
    this.enabled = enabled;
  }

  /** Before the parser sees `chunk`. */
  begin(chunk: Buffer): void {
    this.whole = null;
    this.events = 0;
    this.firstChanged = -1;
    if (!this.enabled) return;
    if (chunk.includes(CR)) {
      this.enabled = false;
      this.pending = null;
      return;
    }
    const bytes = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    const end = bytes.lastIndexOf(BLANK_LINE);
    if (end === -1) {
      this.pending = bytes;
      return;
    }
    this.whole = bytes.subarray(0, end + 2);
    this.pending = end + 2 < bytes.length ? bytes.subarray(end + 2) : null;
  }

  /** The parser gave an event. */
  event(): void {
    this.events += 1;
  }

  /** The latest event is left out, changed or replaced for the client (called before its frames are made). */
  changed(): void {
    if (this.firstChanged === -1) this.firstChanged = this.events - 1;
  }

  /** Whether an event of this chunk changed: its frames, and every later event's, are needed. */
  get changing(): boolean {
    return this.firstChanged !== -1;
  }

  /** What to write for the chunk: null when its frames must all be written. */
  plan(): RawPlan | null {
    const whole = this.whole;
    if (!this.enabled || whole === null) return null;
    if (this.firstChanged === -1) return { raw: whole, changed: false };
    // The end of each block, until the one the first changed event is in; all of them counted.
    let blocks = 0;
    let prefixEnd = 0;
    for (let at = whole.indexOf(BLANK_LINE); at !== -1; at = whole.indexOf(BLANK_LINE, at + 2)) {
      blocks += 1;
      if (blocks === this.firstChanged) prefixEnd = at + 2;
    }
    if (blocks !== this.events) return null;
    return { raw: prefixEnd > 0 ? whole.subarray(0, prefixEnd) : null, changed: true };
  }
}
