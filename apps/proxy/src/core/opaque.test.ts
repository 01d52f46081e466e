import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeOpaque, encodeOpaque, REDACTED_THINKING_PREFIX } from "./opaque.ts";
import type { Origin } from "./stream-parts.ts";

const ORIGINS: Origin[] = ["anthropic", "openai", "gemini"];
const base64 = fc.base64String({ minLength: 4, maxLength: 200 });

describe("the opaque codec", () => {
  it("reads back every value of every origin, signature or redacted data, whatever its text", () => {
    fc.assert(
      fc.property(fc.constantFrom(...ORIGINS), fc.oneof(fc.string(), base64, base64.map((text) => `gAAAAA${text}`), fc.string().map((text) => `gemini.signature:${text}`)), fc.boolean(), (origin, value, redacted) => {
        expect(decodeOpaque(encodeOpaque({ origin, value }, redacted))).toEqual({ origin, value, redacted });
      }),
    );
  });

  it("leaves native values byte-identical: Anthropic signatures, OpenAI Fernet tokens; tags a Gemini signature", () => {
    fc.assert(
      fc.property(base64.filter((text) => !text.startsWith("gAAAAA")), (value) => {
        expect(encodeOpaque({ origin: "anthropic", value })).toBe(value);
        expect(encodeOpaque({ origin: "openai", value: `gAAAAA${value}` })).toBe(`gAAAAA${value}`);
        expect(encodeOpaque({ origin: "gemini", value })).toBe(`gemini.signature:${value}`);
      }),
    );
    // A real signature from the recorded Anthropic stream, and a Fernet token.
    expect(encodeOpaque({ origin: "anthropic", value: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLok" })).toBe("EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLok");
    expect(decodeOpaque("gAAAAABpZ3k")).toEqual({ origin: "openai", value: "gAAAAABpZ3k", redacted: false });
  });

  it("keeps reading what clients already hold: untagged Anthropic signatures, redacted data marked by its old prefix", () => {
    expect(decodeOpaque("EqQBCgIYAhIM")).toEqual({ origin: "anthropic", value: "EqQBCgIYAhIM", redacted: false });
    expect(decodeOpaque("anthropic.redacted_thinking:EmwKAhgB")).toEqual({ origin: "anthropic", value: "EmwKAhgB", redacted: true });
    expect(encodeOpaque({ origin: "anthropic", value: "EmwKAhgB" }, true)).toBe(`${REDACTED_THINKING_PREFIX}EmwKAhgB`);
    // The empty signature of a block that came unsigned stays empty.
    expect(encodeOpaque({ origin: "anthropic", value: "" })).toBe("");
  });

  it("never takes an OpenAI value that is not a Fernet token, or an Anthropic one that looks like one, for the other", () => {
    expect(decodeOpaque(encodeOpaque({ origin: "openai", value: "EqQB" }))).toEqual({ origin: "openai", value: "EqQB", redacted: false });
    expect(encodeOpaque({ origin: "anthropic", value: "gAAAAAxyz" })).toBe("anthropic.signature:gAAAAAxyz");
  });
});
