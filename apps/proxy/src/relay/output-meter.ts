import type { StreamTracker } from "../core/wire-format.ts";
import { encodingForModel, type EncodingName } from "../tokens/count-tokens.ts";
import { PreTokenCounter } from "../tokens/pre-tokens.ts";
import type { TextTokenCounter } from "../tokens/token-counter-pool.ts";
import { UpstreamEvents } from "./upstream-events.ts";

/**
 * Relayed upstream bytes kept before they are read: a stream reads nothing until a count is asked
 * for (`outputTokens`), unless it relays this much first; then its chunks' output text is pulled out
 * and the chunks let go, so memory stays bounded (the text itself is kept: it is bounded by the
 * request's output bound) and no read holds the event loop for long.
 */
const COUNT_AT_BYTES = 64 * 1024;

/** Where the meter says that an exact count could not be had (the pool refused or failed). */
export interface MeterLog {
  warn(fields: Record<string, unknown>, message: string): void;
}

/**
 * The output one stream relayed, in tokens of the model family's tokenizer: the floor of the
 * estimate billed when the upstream's final usage never comes (contract section 14). The relay
 * only keeps a reference to each upstream chunk (no copy, no parse); the chunks are read again,
 * their output text pulled out by the upstream's own tracker, only when a count is asked for or the
 * kept bytes pass the bound, and then let go.
 *
 * The main thread never loads a tokenizer's ranks (~55 MB per encoding). `outputTokens` (the
 * in-flight journal's checkpoints, every second) is the text's count of the family's pre-tokenizer
 * pieces: synchronous, cheap, never more than the tokenizer's count and close to it for prose.
 * `settledOutputTokens` (the final bill of an estimated stream) counts the text exactly with the
 * tokenizer on the token counter pool's worker thread, and is never less than `outputTokens`.
 */
export class OutputMeter {
  private readonly tracker: StreamTracker;
  private readonly model: string;
  private readonly counter: TextTokenCounter | null;
  private readonly log: MeterLog | null;
  private readonly requestId: string | undefined;
  private chunks: Buffer[] = [];
  private keptBytes = 0;
  private events: UpstreamEvents | null = null;
  /** The output text and its pre-token count, from the first read (most streams never read). */
  private text: PreTokenCounter | null = null;
  private encoding: EncodingName | null = null;
  /** Output text of the events read, not yet counted. */
  private added = "";

  /**
   * `model`: the upstream's model name, whose family's tokenizer counts. `counter`: counts the text
   * exactly off the main thread (the proxy's token counter pool); without one, and when it refuses,
   * the settled count is the pre-token count (said to `log`, with `requestId`).
   */
  constructor(tracker: StreamTracker, model: string, counter: TextTokenCounter | null = null, log: MeterLog | null = null, requestId?: string) {
    this.tracker = tracker;
    this.model = model;
    this.counter = counter;
    this.log = log;
    this.requestId = requestId;
  }

  add(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.keptBytes += chunk.length;
    if (this.keptBytes >= COUNT_AT_BYTES) this.read();
  }

  /** Pre-tokenizer pieces of the output text of every chunk added so far: a lower bound of its tokens. */
  get outputTokens(): number {
    this.read();
    return this.text?.count ?? 0;
  }

  /**
   * Tokens of the output text of every chunk added so far, counted with the family's tokenizer on
   * the counter's thread; never fewer than `outputTokens`, which it is when the count cannot be had.
   */
  async settledOutputTokens(): Promise<number> {
    this.read();
    const text = this.text;
    if (text === null || text.empty) return 0;
    const floor = text.count;
    if (this.counter === null) return floor;
    try {
      return Math.max(await this.counter.countText(text.text, this.encodingName()), floor);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.log?.warn({ requestId: this.requestId, reason, outputTokens: floor }, "stream output billed by its pre-token count: the exact count could not be had");
      return floor;
    }
  }

  private encodingName(): EncodingName {
    this.encoding ??= encodingForModel(this.model);
    return this.encoding;
  }

  private read(): void {
    if (this.keptBytes === 0) return;
    // Its own parser: an event cut across two chunks is read whole, whichever read it falls in.
    this.text ??= new PreTokenCounter(this.encodingName());
    this.events ??= new UpstreamEvents((event) => {
      this.added += this.tracker.outputText(event);
    });
    const chunks = this.chunks;
    this.chunks = [];
    this.keptBytes = 0;
    for (const chunk of chunks) this.events.push(chunk);
    // The read's text is counted in one go: only the pieces it may change are scanned again.
    this.text.append(this.added);
    this.added = "";
  }
}
