import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { countTokens as countO200k } from "gpt-tokenizer/encoding/o200k_base";
import { countTokens as countCl100k } from "gpt-tokenizer/encoding/cl100k_base";
import { AS_TEXT, type EncodingName } from "./count-tokens.ts";
import { countPreTokens, PreTokenCounter } from "./pre-tokens.ts";

const exact: Record<EncodingName, (text: string) => number> = {
  o200k_base: (text) => countO200k(text, AS_TEXT),
  cl100k_base: (text) => countCl100k(text, AS_TEXT),
};
const encoding = fc.constantFrom<EncodingName>("o200k_base", "cl100k_base");

/**
 * Texts made of what moves the split regexes' choices: words in both cases, contractions, digits,
 * runs of spaces, tabs and newlines, punctuation and slashes, CJK, marks, emoji, lone surrogates.
 */
const atom = fc.oneof(
  fc.stringMatching(/^[a-zA-Z]{1,8}$/),
  fc.constantFrom("'", "'s", "'ll", "'LL", "'re", "'ve", "'d", "'m", "'t", "don", "we", "l", "L"),
  fc.stringMatching(/^[0-9]{1,5}$/),
  fc.constantFrom(" ", "  ", "   ", "\t", "\n", "\n\n", "\r\n", " \n ", "\n   ", "\u00a0", "\u3000"),
  fc.constantFrom(".", ",", "!?", "/", "//", "...", "-", "(", ")", '"', "<|endoftext|>", "```"),
  fc.constantFrom("東京", "日本語です。", "é", "e\u0301", "Ǆ", "ǅ", "ʰ", "🙂", "👍🏽", "\ud83d", "\ude42", "Ωμέγα", "ДОМ"),
);
const text = fc.oneof(fc.array(atom, { maxLength: 40 }).map((atoms) => atoms.join("")), fc.string({ unit: "grapheme", maxLength: 80 }), fc.string({ unit: "binary", maxLength: 80 }));

/** `whole` cut at the given places. */
function piecesOf(whole: string, cuts: readonly number[]): string[] {
  const at = [...new Set(cuts.map((cut) => cut % (whole.length + 1)))].sort((a, b) => a - b);
  const pieces: string[] = [];
  let start = 0;
  for (const cut of [...at, whole.length]) {
    pieces.push(whole.slice(start, cut));
    start = cut;
  }
  return pieces;
}

describe("pre-token counts", () => {
  it("are never more than the tokenizer's count, for any text, with either encoding", () => {
    fc.assert(
      fc.property(encoding, text, (name, whole) => {
        expect(countPreTokens(whole, name)).toBeLessThanOrEqual(exact[name](whole));
      }),
      { numRuns: 2000 },
    );
  });

  it("are close to it for prose (a word with its space is one piece)", () => {
    const prose = "The quick brown fox jumps over the lazy dog, and then it runs back home again.";
    expect(countPreTokens(prose, "o200k_base")).toBe(exact.o200k_base(prose));
    expect(countPreTokens(prose, "cl100k_base")).toBe(exact.cl100k_base(prose));
  });

  it("kept up to date as text is appended, are always those of all text appended, however it is cut", () => {
    fc.assert(
      fc.property(encoding, text, fc.array(fc.nat(), { maxLength: 16 }), (name, whole, cuts) => {
        const counter = new PreTokenCounter(name);
        let sofar = "";
        for (const piece of piecesOf(whole, cuts)) {
          counter.append(piece);
          sofar += piece;
          expect(counter.count).toBe(countPreTokens(sofar, name));
          expect(counter.count).toBeLessThanOrEqual(exact[name](sofar));
        }
        expect(counter.text).toBe(whole);
      }),
      { numRuns: 2000 },
    );
  });

  it("set settled text aside: what is scanned again stays short however long the text grows", () => {
    const counter = new PreTokenCounter("o200k_base");
    for (let index = 0; index < 10_000; index += 1) counter.append(" word");
    expect(counter.count).toBe(10_000);
    expect((counter as unknown as { tail: string }).tail.length).toBeLessThan(32);
    expect(counter.text).toBe(" word".repeat(10_000));
  });
});
