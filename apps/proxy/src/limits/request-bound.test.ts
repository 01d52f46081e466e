import { costOfUsage, EMPTY_USAGE, type ScaledPrices, type UnitPrices } from "@gateway/contracts";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ParsedRequest } from "../upstreams/index.ts";
import { requestBoundNano, requestTokens } from "./request-bound.ts";

const price = fc.bigInt({ min: 0n, max: 10n ** 12n });
const unitPrices: fc.Arbitrary<UnitPrices> = fc.record({
  inputPrice: price,
  outputPrice: price,
  cachedInputPrice: price,
  cacheWritePrice: price,
  cacheWrite1hPrice: price,
  imagePrice: price,
  requestPrice: price,
  webSearchPrice: price,
});
const scaledPrices: fc.Arbitrary<ScaledPrices> = fc
  .record({ base: unitPrices, tiers: fc.array(fc.record({ aboveInputTokens: fc.nat({ max: 5000 }), prices: unitPrices }), { maxLength: 3 }) })
  .map(({ base, tiers }) => ({ ...base, tiers: tiers.sort((a, b) => a.aboveInputTokens - b.aboveInputTokens) }));

/** The bound as the contract states it: the dearest of the ways the input can be charged (plain, 5-minute writes, 1-hour writes). */
function dearestWay(requestBytes: number, outputTokens: number, images: number, prices: ScaledPrices): bigint {
  const bound = { ...EMPTY_USAGE, inputTokens: requestBytes, outputTokens, images };
  const ways = [bound, { ...bound, cacheWriteTokens: requestBytes }, { ...bound, cacheWriteTokens: requestBytes, cacheWrite1hTokens: requestBytes }];
  return ways.map((way) => costOfUsage(way, prices)).reduce((most, cost) => (cost > most ? cost : most));
}

function request(body: Record<string, unknown>): ParsedRequest {
  return { body, model: "m", stream: false };
}

describe("requestBoundNano", () => {
  it("is the dearest way the request's tokens can be charged, at any prices and tiers", () => {
    fc.assert(
      fc.property(scaledPrices, fc.nat({ max: 10_000 }), fc.option(fc.integer({ min: 1, max: 100_000 }), { nil: undefined }), (prices, requestBytes, maxTokens) => {
        const body = maxTokens === undefined ? {} : { max_tokens: maxTokens };
        expect(requestBoundNano(request(body), requestBytes, prices, "chat.completions")).toBe(dearestWay(requestBytes, maxTokens ?? 4096, 0, prices));
      }),
      { numRuns: 2000 },
    );
  });

  it("counts images for image generation and no output for embeddings", () => {
    fc.assert(
      fc.property(scaledPrices, fc.nat({ max: 10_000 }), fc.integer({ min: 1, max: 10 }), (prices, requestBytes, n) => {
        expect(requestBoundNano(request({ n }), requestBytes, prices, "images.generations")).toBe(dearestWay(requestBytes, 0, n, prices));
        expect(requestBoundNano(request({ max_tokens: 50 }), requestBytes, prices, "embeddings")).toBe(dearestWay(requestBytes, 0, 0, prices));
      }),
      { numRuns: 500 },
    );
  });

  it("reads the route's one output bound when the request carries it, whatever its fields say", () => {
    fc.assert(
      fc.property(scaledPrices, fc.nat({ max: 10_000 }), fc.integer({ min: 1, max: 200_000 }), fc.double({ min: 1, max: 1e300, noNaN: true }), (prices, requestBytes, bound, field) => {
        const parsed: ParsedRequest = { ...request({ max_tokens: field, max_completion_tokens: bound + 1 }), outputBound: bound };
        expect(requestBoundNano(parsed, requestBytes, prices, "chat.completions")).toBe(dearestWay(requestBytes, bound, 0, prices));
      }),
      { numRuns: 500 },
    );
  });
});

describe("requestTokens", () => {
  it("is a fair input estimate (a token about four bytes) plus the output bound; embeddings and images add no output", () => {
    fc.assert(
      fc.property(fc.nat({ max: 10_000_000 }), fc.integer({ min: 0, max: 200_000 }), (requestBytes, bound) => {
        const parsed: ParsedRequest = { ...request({ max_tokens: 7 }), outputBound: bound };
        expect(requestTokens(parsed, requestBytes, "messages")).toBe(Math.ceil(requestBytes / 4) + bound);
        expect(requestTokens(parsed, requestBytes, "embeddings")).toBe(Math.ceil(requestBytes / 4));
        expect(requestTokens(parsed, requestBytes, "images.generations")).toBe(Math.ceil(requestBytes / 4));
        // Without the route's bound: the request's own field, as before.
        expect(requestTokens(request({ max_tokens: 7 }), requestBytes, "messages")).toBe(Math.ceil(requestBytes / 4) + 7);
      }),
      { numRuns: 500 },
    );
  });
});
