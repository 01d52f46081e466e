const CR = 0x0d;
const BLANK_LINE = "\n\n";

/** What to write for one chunk: the upstream's bytes of its first events, then `out` from `fromOut` on. */
export interface RawPlan {
  /** The upstream's own bytes of the events before the first one that changed (null: none). */
  raw: Buffer | null;
  /** Where in the chunk's frames (`out`) the frames of the first changed event start; `out.length` or more when none changed. */
  fromOut: number;
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
  /** Events the parser gave for this chunk, and where the latest one's frames start in `out`. */
  private events = 0;
  private latestOut = 0;
  /** The first changed event of this chunk (-1: none) and where its frames start in `out`. */
  private firstChanged = -1;
  private changedOut = 0;

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

  /** The parser gave an event; its frames will start at `outLength` in the chunk's frames. */
  event(outLength: number): void {
    this.events += 1;
    this.latestOut = outLength;
  }

  /** The latest event was left out, changed or replaced for the client. */
  changed(): void {
    if (this.firstChanged !== -1) return;
    this.firstChanged = this.events - 1;
    this.changedOut = this.latestOut;
  }

  /** What to write for the chunk: null when its frames must all be written. */
  plan(): RawPlan | null {
    const whole = this.whole;
    if (!this.enabled || whole === null) return null;
    if (this.firstChanged === -1) return { raw: whole, fromOut: Number.POSITIVE_INFINITY };
    // The end of each block, until the one the first changed event is in; all of them counted.
    let blocks = 0;
    let prefixEnd = 0;
    for (let at = whole.indexOf(BLANK_LINE); at !== -1; at = whole.indexOf(BLANK_LINE, at + 2)) {
      blocks += 1;
      if (blocks === this.firstChanged) prefixEnd = at + 2;
    }
    if (blocks !== this.events) return null;
    return { raw: prefixEnd > 0 ? whole.subarray(0, prefixEnd) : null, fromOut: this.changedOut };
  }
}
