import { CL100K_TOKEN_SPLIT_REGEX, O200K_TOKEN_SPLIT_REGEX } from "gpt-tokenizer/encodingParams/constants";
import type { EncodingName } from "./count-tokens.ts";

/**
 * The model family's pre-tokenizer pieces (gpt-tokenizer's split regexes; no ranks, no tokenizer
 * loaded: a few hundred bytes of memory). BPE merges only within a piece, and every piece is at least
 * one token, so a text's piece count is never more than its token count, and close to it for prose
 * (a word with its leading space is one piece and, most often, one token).
 */
const SPLIT_SOURCE: Record<EncodingName, string> = { o200k_base: O200K_TOKEN_SPLIT_REGEX.source, cl100k_base: CL100K_TOKEN_SPLIT_REGEX.source };

/** A regex of its own (gpt-tokenizer's are shared, and `exec` moves their `lastIndex`). */
function splitRegex(encoding: EncodingName): RegExp {
  return new RegExp(SPLIT_SOURCE[encoding], "gu");
}

/** Pre-tokenizer pieces of `text`: a lower bound of its token count with `encoding`. */
export function countPreTokens(text: string, encoding: EncodingName): number {
  const split = splitRegex(encoding);
  let count = 0;
  for (let match = split.exec(text); match !== null; match = split.exec(text)) {
    count += 1;
    if (match[0].length === 0) split.lastIndex += 1;
  }
  return count;
}

/**
 * Code units past a piece's end (past the end of its run of whitespace, for a piece that ends in
 * whitespace) that must be there before the piece is final. The split regexes read at most a few
 * characters past the piece they match (a contraction, `'ll`, is tried after a word; greedy runs stop
 * at the next character), except their whitespace alternatives, which read the whole run of
 * whitespace (`\s*[\r\n]+` takes it up to its last newline, `\s+(?!\S)` gives its last space to the
 * next word): once text that far exists, nothing appended later changes the piece.
 */
const SETTLED_AFTER = 8;
const SPACE = /\s/y;
const NON_SPACE = /\S/g;

/** Whether the piece ending at `end` can no longer change whatever is appended after `text`. */
function settled(text: string, end: number): boolean {
  let next = end;
  SPACE.lastIndex = end - 1;
  if (end > 0 && SPACE.test(text)) {
    NON_SPACE.lastIndex = end;
    const found = NON_SPACE.exec(text);
    if (found === null) return false;
    next = found.index;
  }
  return next + SETTLED_AFTER <= text.length;
}

/**
 * The pre-token count of a text that grows at its end, kept up to date in time proportional to what
 * is appended: the settled pieces are counted once and their text set aside, only the last few
 * (unsettled) are scanned again. `count` is always exactly `countPreTokens` of all text appended.
 */
export class PreTokenCounter {
  private readonly split: RegExp;
  /** Text of the settled pieces, in order. */
  private readonly settledText: string[] = [];
  private settledCount = 0;
  /** Text after the settled pieces, and its pieces (which text appended later may change). */
  private tail = "";
  private tailCount = 0;

  constructor(encoding: EncodingName) {
    this.split = splitRegex(encoding);
  }

  get count(): number {
    return this.settledCount + this.tailCount;
  }

  /** All text appended so far. */
  get text(): string {
    return this.settledText.length === 0 ? this.tail : this.settledText.join("") + this.tail;
  }

  get empty(): boolean {
    return this.tail.length === 0 && this.settledText.length === 0;
  }

  append(text: string): void {
    if (text.length === 0) return;
    const tail = this.tail + text;
    const split = this.split;
    split.lastIndex = 0;
    let cut = 0;
    let tailCount = 0;
    let settling = true;
    for (let match = split.exec(tail); match !== null; match = split.exec(tail)) {
      if (match[0].length === 0) split.lastIndex += 1;
      const end = split.lastIndex;
      if (settling && settled(tail, end)) {
        this.settledCount += 1;
        cut = end;
      } else {
        // Every piece after the first unsettled one stays in the tail: each is read again from there.
        settling = false;
        tailCount += 1;
      }
    }
    if (cut > 0) this.settledText.push(tail.slice(0, cut));
    this.tail = cut > 0 ? tail.slice(cut) : tail;
    this.tailCount = tailCount;
  }
}
