// costOfUsage sums in doubles when every part is a whole number below 2^53 and falls back to
// BigInt otherwise. Property: for any usage and prices, small, near the limit or far past it, its
// answer is the contract's formula computed in BigInt here (rounded half up once, at the end).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { costOfUsage, type UnitPrices } from "./pricing.ts";
import type { UsageInput } from "./billing-event.ts";

/** The contract's formula, written out in BigInt: the oracle. */
function oracle(usage: Required<UsageInput>, prices: UnitPrices): bigint {
  const writes5m = Math.max(0, usage.cacheWriteTokens - usage.cacheWrite1hTokens);
  const uncached = Math.max(0, usage.inputTokens - usage.cachedInputTokens - writes5m - usage.cacheWrite1hTokens);
  const any = usage.inputTokens + usage.outputTokens + usage.images + usage.webSearchRequests + usage.cachedInputTokens + writes5m + usage.cacheWrite1hTokens > 0;
  const pico =
    BigInt(uncached) * prices.inputPrice +
    BigInt(usage.cachedInputTokens) * prices.cachedInputPrice +
    BigInt(writes5m) * prices.cacheWritePrice +
    BigInt(usage.cacheWrite1hTokens) * prices.cacheWrite1hPrice +
    BigInt(usage.outputTokens) * prices.outputPrice +
    BigInt(usage.images) * prices.imagePrice +
    BigInt(usage.webSearchRequests) * prices.webSearchPrice +
    (any ? prices.requestPrice : 0n);
  const divisor = 10_000_000n;
  return (pico + divisor / 2n) / divisor;
}

// Counts from nothing to past 2^53 and prices from nothing to 10^25 (scaled pico-USD), with the
// edges of the double path weighted in: where a product or the sum crosses 2^53.
const count = fc.oneof(fc.nat(10_000), fc.nat(2_000_000), fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), fc.constantFrom(0, 1, 2 ** 26, 2 ** 27 - 1, 94_906_265, 2 ** 53 - 1));
const price = fc.oneof(fc.bigInt({ min: 0n, max: 10_000_000_000n }), fc.bigInt({ min: 0n, max: 10n ** 16n }), fc.bigInt({ min: 0n, max: 10n ** 25n }), fc.constantFrom(0n, 1n, 2n ** 26n, 94_906_267n, 2n ** 53n - 1n, 2n ** 53n, 2n ** 53n + 1n));
const usage = fc.record({
  inputTokens: count,
  outputTokens: count,
  cachedInputTokens: count,
  cacheWriteTokens: count,
  cacheWrite1hTokens: count,
  reasoningTokens: count,
  images: count,
  webSearchRequests: count,
});
const prices = fc.record({
  inputPrice: price,
  outputPrice: price,
  cachedInputPrice: price,
  cacheWritePrice: price,
  cacheWrite1hPrice: price,
  imagePrice: price,
  requestPrice: price,
  webSearchPrice: price,
});

describe("costOfUsage's double path", () => {
  it("answers exactly the contract's BigInt formula, whatever the sizes", () => {
    fc.assert(fc.property(usage, prices, (given, unit) => costOfUsage(given, unit) === oracle(given, unit)), { numRuns: 20_000 });
  });

  it("lands on the right side of the rounding boundary, with products on both sides of 2^53", () => {
    // The total made to end in 4,999,999 or 5,000,000 pico-units past a whole nano-USD (the request
    // price takes up the rest): one unit lost or gained in doubles would round the other way.
    const boundary = fc.record({ tokens: fc.integer({ min: 2 ** 20, max: 2 ** 40 }), inputPrice: fc.bigInt({ min: 2n ** 13n, max: 2n ** 40n }), half: fc.boolean(), wholes: fc.bigInt({ min: 0n, max: 2n ** 20n }) });
    fc.assert(
      fc.property(boundary, ({ tokens, inputPrice, half, wholes }) => {
        const product = BigInt(tokens) * inputPrice;
        const target = half ? 5_000_000n : 4_999_999n;
        const requestPrice = (((target - product) % 10_000_000n) + 10_000_000n) % 10_000_000n + wholes * 10_000_000n;
        const unit: UnitPrices = { inputPrice, outputPrice: 0n, cachedInputPrice: 0n, cacheWritePrice: 0n, cacheWrite1hPrice: 0n, imagePrice: 0n, requestPrice, webSearchPrice: 0n };
        const given = { inputTokens: tokens, outputTokens: 0, cachedInputTokens: 0, cacheWriteTokens: 0, cacheWrite1hTokens: 0, reasoningTokens: 0, images: 0, webSearchRequests: 0 };
        return costOfUsage(given, unit) === oracle(given, unit);
      }),
      { numRuns: 20_000 },
    );
  });

  it("rounds half up at the boundary, in both paths", () => {
    const only = (inputPrice: bigint): UnitPrices => ({ inputPrice, outputPrice: 0n, cachedInputPrice: 0n, cacheWritePrice: 0n, cacheWrite1hPrice: 0n, imagePrice: 0n, requestPrice: 0n, webSearchPrice: 0n });
    const one = { inputTokens: 1, outputTokens: 0, cachedInputTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, images: 0 };
    expect(costOfUsage(one, only(4_999_999n))).toBe(0n);
    expect(costOfUsage(one, only(5_000_000n))).toBe(1n);
    expect(costOfUsage(one, only(15_000_000n))).toBe(2n);
    // Past 2^53: the BigInt path, same rule.
    expect(costOfUsage(one, only(10n ** 24n + 5_000_000n))).toBe(10n ** 17n + 1n);
    expect(costOfUsage(one, only(10n ** 24n + 4_999_999n))).toBe(10n ** 17n);
  });

  it("still refuses a count that is not a whole number, as BigInt does", () => {
    const unit: UnitPrices = { inputPrice: 1n, outputPrice: 1n, cachedInputPrice: 0n, cacheWritePrice: 0n, cacheWrite1hPrice: 0n, imagePrice: 0n, requestPrice: 0n, webSearchPrice: 0n };
    expect(() => costOfUsage({ inputTokens: 1.5, outputTokens: 0, cachedInputTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, images: 0 }, unit)).toThrow(RangeError);
  });
});
