import { describe, expect, it } from "vitest";
import { EMPTY_USAGE, type Usage } from "./billing-event.ts";
import { picoToNano } from "./money.ts";
import { defaultCacheWritePrices, priceUsage, scaledUnitPrices, tiersFromJson, tiersToJson, type PriceSheet } from "./pricing.ts";

const NO_EXTRAS = { cacheWritePrice: 0n, cacheWrite1hPrice: 0n, requestPrice: 0n, webSearchPrice: 0n };
const LIST = { ...NO_EXTRAS, inputPrice: 150_000n, outputPrice: 600_000n, cachedInputPrice: 75_000n, cacheWritePrice: 187_500n, cacheWrite1hPrice: 300_000n, imagePrice: 40_000_000_000n };
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
      cacheWritePrice: 187_500n * 20_000n,
      cacheWrite1hPrice: 300_000n * 20_000n,
      imagePrice: 40_000_000_000n * 20_000n,
      requestPrice: 0n,
      webSearchPrice: 0n,
      tiers: [],
    });
  });

  it("treats an override of 0 as a price (free), not as missing", () => {
    const free = sheet({ overrides: { ...NO_OVERRIDES, outputPrice: 0n } });
    expect(priceUsage(usage({ outputTokens: 1_000_000 }), free)).toBe(0n);
  });

  it("prices the cached part of input at the cached rate, cache writes at the write rate and the rest at the input rate", () => {
    const cost = priceUsage(usage({ inputTokens: 1000, cachedInputTokens: 400, cacheWriteTokens: 100 }), sheet());
    // (1000 - 400 - 100) x 150_000 + 400 x 75_000 + 100 x 187_500 pico
    expect(cost).toBe(picoToNano(500n * 150_000n + 400n * 75_000n + 100n * 187_500n));
    expect(cost).toBe(123_750n);
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
    const cheap = { ...NO_EXTRAS, inputPrice: 300n, outputPrice: 300n, cachedInputPrice: 0n, imagePrice: 0n };
    // 0.3 nano per token, rounded per token, would be 0
    expect(priceUsage(usage({ inputTokens: 3 }), sheet({ model: cheap }))).toBe(1n);
    // 0.3 + 0.3 nano, rounded per component, would be 0
    expect(priceUsage(usage({ inputTokens: 1, outputTokens: 1 }), sheet({ model: cheap }))).toBe(1n);
    // 1.5 nano rounds half up; 1.2 rounds down
    expect(priceUsage(usage({ inputTokens: 5 }), sheet({ model: cheap }))).toBe(2n);
    expect(priceUsage(usage({ inputTokens: 4 }), sheet({ model: cheap }))).toBe(1n);
  });

  it("keeps fractions of a pico from the multiplier exact until the final rounding", () => {
    const tiny = { ...NO_EXTRAS, inputPrice: 3n, outputPrice: 0n, cachedInputPrice: 0n, imagePrice: 0n };
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

describe("prices as the providers charge them (contract section 12)", () => {
  const TIERED = {
    ...LIST,
    requestPrice: 1_000_000n,
    webSearchPrice: 10_000_000_000n,
    tiers: [
      { aboveInputTokens: 2000, prices: { inputPrice: 450_000n } },
      { aboveInputTokens: 1000, prices: { inputPrice: 300_000n, outputPrice: 900_000n } },
    ],
  };
  const cases: { name: string; usage: Partial<Usage>; sheet: Partial<PriceSheet>; nano: bigint }[] = [
    // 100 x 150_000 + 1e6 (request)
    { name: "a flat request fee on any usage", usage: { inputTokens: 100 }, sheet: { model: TIERED }, nano: 16_000n },
    { name: "no request fee without usage", usage: {}, sheet: { model: TIERED }, nano: 0n },
    // 700 x 150_000 + 200 x 187_500 + 100 x 300_000 + 1e6
    { name: "5-minute and 1-hour writes", usage: { inputTokens: 1000, cacheWriteTokens: 300, cacheWrite1hTokens: 100 }, sheet: { model: TIERED }, nano: 173_500n },
    // above 1000: 1001 x 300_000 + 10 x 900_000 + 1e6
    { name: "a tier crossing prices every token at the tier", usage: { inputTokens: 1001, outputTokens: 10 }, sheet: { model: TIERED }, nano: 310_300n },
    // above 2000 (the highest crossed): 2001 x 450_000 + 10 x 600_000 (the tier leaves output at base) + 1e6
    { name: "the highest threshold crossed wins; a field left out is the base", usage: { inputTokens: 2001, outputTokens: 10 }, sheet: { model: TIERED }, nano: 907_450n },
    // 3 x 1e10 + 1e6
    { name: "web searches", usage: { webSearchRequests: 3 }, sheet: { model: TIERED }, nano: 30_001_000n },
    // the tier x 2: 1001 x 600_000 + 1e6 x 2
    { name: "a multiplier applies to tiers and the request fee", usage: { inputTokens: 1001 }, sheet: { model: TIERED, multiplierBps: 20_000 }, nano: 602_600n },
    // the override's own tier replaces the model's: 1001 x 100_000 + 1e6
    { name: "an override's tiers replace the model's", usage: { inputTokens: 1001 }, sheet: { model: TIERED, overrides: { tiers: [{ aboveInputTokens: 1000, prices: { inputPrice: 100_000n } }] } }, nano: 101_100n },
  ];
  it.each(cases)("$name", ({ usage: parts, sheet: partial, nano }) => {
    expect(priceUsage(usage(parts), sheet(partial))).toBe(nano);
  });

  it("stores tiers as JSON and reads them back", () => {
    const tiers = [{ aboveInputTokens: 1000, prices: { inputPrice: 300_000n, webSearchPrice: 5n } }];
    expect(tiersFromJson(JSON.parse(JSON.stringify(tiersToJson(tiers))))).toEqual(tiers);
    expect(tiersFromJson(null)).toBeNull();
  });

  it("defaults cache writes to 1.25x and 2x input, rounded up to a whole pico", () => {
    expect(defaultCacheWritePrices(3_000_000n)).toEqual({ cacheWritePrice: 3_750_000n, cacheWrite1hPrice: 6_000_000n });
    expect(defaultCacheWritePrices(1n)).toEqual({ cacheWritePrice: 2n, cacheWrite1hPrice: 2n });
  });
});
