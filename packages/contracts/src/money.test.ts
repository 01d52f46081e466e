import { describe, expect, it } from "vitest";
import { formatUsd, parsePriceToPico, parseUsdToNano, picoToNano } from "./money.ts";

describe("money", () => {
  it("parses USD text exactly into nano-USD", () => {
    expect(parseUsdToNano("10.00")).toBe(10_000_000_000n);
    expect(parseUsdToNano("0.000000001")).toBe(1n);
    expect(() => parseUsdToNano("0.0000000001")).toThrow(RangeError);
    expect(() => parseUsdToNano("-1")).toThrow(RangeError);
    expect(() => parseUsdToNano("1e3")).toThrow(RangeError);
  });

  it("parses prices into pico-USD per unit", () => {
    expect(parsePriceToPico("0.15", "per_million_tokens")).toBe(150_000n);
    expect(parsePriceToPico("0.0375", "per_million_tokens")).toBe(37_500n);
    expect(parsePriceToPico("0.04", "per_unit")).toBe(40_000_000_000n);
  });

  it("formats nano-USD as 6-decimal strings, rounding half up", () => {
    expect(formatUsd(150_000n)).toBe("0.000150");
    expect(formatUsd(10_000_000_000n)).toBe("10.000000");
    expect(formatUsd(499n)).toBe("0.000000");
    expect(formatUsd(500n)).toBe("0.000001");
    expect(formatUsd(-1_500n)).toBe("-0.000002");
  });

  it("rounds pico to nano once, half up", () => {
    expect(picoToNano(1_499n)).toBe(1n);
    expect(picoToNano(1_500n)).toBe(2n);
  });
});
