const CR = 0x0d;

/**
 * The upstream's bytes of the whole events in the chunk just read, for relaying them as they came.
 * Events end at a blank line; whatever follows the last one waits for the next chunk. A stream
 * with CR line endings is always re-framed (its boundaries are not looked for here).
 */
export class RawEvents {
  private enabled: boolean;
  private pending: Buffer | null = null;
  private whole: Buffer | null = null;
  private unchanged = true;

  constructor(enabled: boolean) {
    this.enabled = enabled;
  }

  /** Before the parser sees `chunk`. */
  begin(chunk: Buffer): void {
    this.unchanged = true;
    this.whole = null;
    if (!this.enabled) return;
    if (chunk.includes(CR)) {
      this.enabled = false;
      this.pending = null;
      return;
    }
    const bytes = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    const end = bytes.lastIndexOf("\n\n");
    if (end === -1) {
      this.pending = bytes;
      return;
    }
    this.whole = bytes.subarray(0, end + 2);
    this.pending = end + 2 < bytes.length ? bytes.subarray(end + 2) : null;
  }

  /** An event of this chunk was left out, changed or replaced for the client. */
  changed(): void {
    this.unchanged = false;
  }

  /** The whole events' bytes when each reaches the client unchanged; null: write the frames. */
  asIs(): Buffer | null {
    return this.enabled && this.unchanged ? this.whole : null;
  }
}
