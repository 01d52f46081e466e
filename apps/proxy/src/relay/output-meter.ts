import type { StreamTracker } from "../upstreams/index.ts";
import { AS_TEXT, encodingForModel, loadEncoding, type Encoding, type EncodingName } from "../tokens/count-tokens.ts";
import { UpstreamEvents } from "./upstream-events.ts";

/**
 * Relayed upstream bytes kept before they are counted: a stream counts nothing until an estimate is
 * asked for (`outputTokens`), unless it relays this much first; then its pieces are counted and let
 * go, so memory stays bounded and no count blocks the event loop for long (a few ms for 64 KiB of
 * events, most of them framing).
 */
const COUNT_AT_BYTES = 64 * 1024;

/** Loaded encodings, by name: a count is synchronous (the in-flight journal asks every second). */
const loaded = new Map<EncodingName, Encoding>();
const loading = new Set<EncodingName>();
let warm = false;

/** The encoding when its ranks are in memory; else null, and loading starts (once). */
function loadedEncoding(name: EncodingName): Encoding | null {
  const encoding = loaded.get(name);
  if (encoding !== undefined || loading.has(name)) return encoding ?? null;
  loading.add(name);
  void loadEncoding(name).then((ready) => loaded.set(name, ready));
  return null;
}

/**
 * The output one stream relayed, in tokens of the model family's tokenizer: the floor of the
 * estimate billed when the upstream's final usage never comes (contract section 14). The relay
 * only keeps a reference to each upstream chunk (no copy, no parse); the chunks are read again,
 * their output text pulled out by the upstream's own tracker and tokenized, only when a count is
 * asked for or the kept bytes pass the bound, and then let go: counting is incremental.
 */
export class OutputMeter {
  private readonly tracker: StreamTracker;
  private readonly model: string;
  /** The model family's encoding, worked out at the first count (most streams never count). */
  private encoding: EncodingName | null = null;
  private chunks: Buffer[] = [];
  private keptBytes = 0;
  private tokens = 0;
  private events: UpstreamEvents | null = null;
  private text = "";

  /** `model`: the upstream's model name, whose family's tokenizer counts. */
  constructor(tracker: StreamTracker, model: string) {
    this.tracker = tracker;
    this.model = model;
    // The current models' ranks start loading with the process's first stream, so they are there
    // by the time an estimate is needed (one check per stream after that).
    if (!warm) {
      warm = true;
      loadedEncoding("o200k_base");
    }
  }

  add(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.keptBytes += chunk.length;
    if (this.keptBytes >= COUNT_AT_BYTES) this.count();
  }

  /** Tokens of the output text of every chunk added so far. */
  get outputTokens(): number {
    this.count();
    return this.tokens;
  }

  /** `outputTokens` once the tokenizer is loaded (for the final bill, which may wait). */
  async settledOutputTokens(): Promise<number> {
    const name = this.encodingName();
    if (loadedEncoding(name) === null) loaded.set(name, await loadEncoding(name));
    return this.outputTokens;
  }

  private encodingName(): EncodingName {
    this.encoding ??= encodingForModel(this.model);
    return this.encoding;
  }

  private count(): void {
    if (this.keptBytes === 0) return;
    // Its own parser: an event cut across two chunks is read whole, whichever count it falls in.
    this.events ??= new UpstreamEvents((event) => {
      this.text += this.tracker.outputText(event);
    });
    const chunks = this.chunks;
    this.chunks = [];
    this.keptBytes = 0;
    for (const chunk of chunks) this.events.push(chunk);
    if (this.text === "") return;
    const encoding = loadedEncoding(this.encodingName());
    // Until the ranks are loaded, a token per byte: a token is at least one byte, so never fewer.
    this.tokens += encoding === null ? Buffer.byteLength(this.text) : encoding.countTokens(this.text, AS_TEXT);
    this.text = "";
  }
}
