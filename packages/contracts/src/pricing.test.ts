import { describe, expect, it } from "vitest";
import { EMPTY_USAGE, type Usage } from "./billing-event.ts";
import { picoToNano } from "./money.ts";
import { priceUsage, scaledUnitPrices, type PriceSheet } from "./pricing.ts";

const LIST = { inputPrice: 150_000n, outputPrice: 600_000n, cachedInputPrice: 75_000n, imagePrice: 40_000_000_000n };
const NO_OVERRIDES = { inputPrice: null, outputPrice: null, cachedInputPrice: null, imagePrice: null };

function sheet(partial: Partial<PriceSheet> = {}): PriceSheet {
  return { model: LIST, multiplierBps: 10_000, overrides: null, ...partial };
}

function usage(partial: Partial<Usage>): Usage {
  return { ...EMPTY_USAGE, ...partial };
}

describe("priceUsage", () => {
  it("prices input, output and images at list price under a 1.0x option", () => {
    const cost = priceUsage(usage({ inputTokens: 1000, outputTokens: 500, images: 2 }), sheet());
    // 1000 x 150_000 + 500 x 600_000 + 2 x 40_000_000_000 pico
    expect(cost).toBe(picoToNano(150_000_000n + 300_000_000n + 80_000_000_000n));
    expect(cost).toBe(80_450_000n);
  });

  it("applies the server option's multiplier to list prices", () => {
    expect(priceUsage(usage({ inputTokens: 1000, outputTokens: 500 }), sheet({ multiplierBps: 12_500 }))).toBe(562_500n);
    expect(priceUsage(usage({ inputTokens: 1000 }), sheet({ multiplierBps: 0 }))).toBe(0n);
  });

  it("uses an override as is, without the multiplier, and multiplies only the fields not overridden", () => {
    const overridden = sheet({ multiplierBps: 20_000, overrides: { ...NO_OVERRIDES, inputPrice: 100_000n } });
    // input 1000 x 100_000 (override, not doubled) + output 500 x 1_200_000 (list x 2)
    expect(priceUsage(usage({ inputTokens: 1000, outputTokens: 500 }), overridden)).toBe(100_000n + 600_000n);
    expect(scaledUnitPrices(overridden)).toEqual({
      inputPrice: 100_000n * 10_000n,
      outputPrice: 600_000n * 20_000n,
      cachedInputPrice: 75_000n * 20_000n,
      imagePrice: 40_000_000_000n * 20_000n,
    });
  });

  it("treats an override of 0 as a price (free), not as missing", () => {
    const free = sheet({ overrides: { ...NO_OVERRIDES, outputPrice: 0n } });
    expect(priceUsage(usage({ outputTokens: 1_000_000 }), free)).toBe(0n);
  });

  it("prices the cached part of input at the cached rate and the rest, cache writes included, at the input rate", () => {
    const cost = priceUsage(usage({ inputTokens: 1000, cachedInputTokens: 400, cacheWriteTokens: 100 }), sheet());
    // (1000 - 400) x 150_000 + 400 x 75_000 pico; the 100 cache-write tokens are in the 600
    expect(cost).toBe(picoToNano(600n * 150_000n + 400n * 75_000n));
    expect(cost).toBe(120_000n);
  });

  it("uses an overridden cached price", () => {
    const cost = priceUsage(usage({ inputTokens: 1000, cachedInputTokens: 1000 }), sheet({ overrides: { ...NO_OVERRIDES, cachedInputPrice: 1_000n } }));
    expect(cost).toBe(1_000n);
  });

  it("prices reasoning tokens once, as part of output", () => {
    const withReasoning = priceUsage(usage({ outputTokens: 500, reasoningTokens: 300 }), sheet());
    expect(withReasoning).toBe(priceUsage(usage({ outputTokens: 500 }), sheet()));
    expect(withReasoning).toBe(300_000n);
  });

  it("never goes negative when cached exceeds the reported input", () => {
    expect(priceUsage(usage({ inputTokens: 10, cachedInputTokens: 20 }), sheet())).toBe(picoToNano(20n * 75_000n));
  });

  it("is 0 for an empty usage (an error before any token)", () => {
    expect(priceUsage(EMPTY_USAGE, sheet({ multiplierBps: 12_500 }))).toBe(0n);
  });

  it("rounds once per request, half up, not per token or per component", () => {
    const cheap = { inputPrice: 300n, outputPrice: 300n, cachedInputPrice: 0n, imagePrice: 0n };
    // 0.3 nano per token, rounded per token, would be 0
    expect(priceUsage(usage({ inputTokens: 3 }), sheet({ model: cheap }))).toBe(1n);
    // 0.3 + 0.3 nano, rounded per component, would be 0
    expect(priceUsage(usage({ inputTokens: 1, outputTokens: 1 }), sheet({ model: cheap }))).toBe(1n);
    // 1.5 nano rounds half up; 1.2 rounds down
    expect(priceUsage(usage({ inputTokens: 5 }), sheet({ model: cheap }))).toBe(2n);
    expect(priceUsage(usage({ inputTokens: 4 }), sheet({ model: cheap }))).toBe(1n);
  });

  it("keeps fractions of a pico from the multiplier exact until the final rounding", () => {
    const tiny = { inputPrice: 3n, outputPrice: 0n, cachedInputPrice: 0n, imagePrice: 0n };
    // 3 pico x 1.5 = 4.5 pico per token: 1000 tokens = 4500 pico = 4.5 nano -> 5 (truncating the
    // unit price to 4 pico would give 4)
    expect(priceUsage(usage({ inputTokens: 1000 }), sheet({ model: tiny, multiplierBps: 15_000 }))).toBe(5n);
    // 3 pico x 1.0001 over 10^9 tokens: 3_000_300_000 pico exactly
    expect(priceUsage(usage({ inputTokens: 1_000_000_000 }), sheet({ model: tiny, multiplierBps: 10_001 }))).toBe(3_000_300n);
  });

  it("matches picoToNano when every price is a whole pico", () => {
    const event = usage({ inputTokens: 123_457, cachedInputTokens: 1_111, outputTokens: 98_765, images: 1 });
    const pico = (123_457n - 1_111n) * 150_000n + 1_111n * 75_000n + 98_765n * 600_000n + 40_000_000_000n;
    expect(priceUsage(event, sheet())).toBe(picoToNano(pico));
  });
});
