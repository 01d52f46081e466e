import { costOfUsage, EMPTY_USAGE, type ScaledPrices, type UnitPrices } from "@gateway/contracts";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { EndpointName, ParsedRequest } from "../core/wire-format.ts";
import { outputBound } from "../core/output-bound.ts";
import { requestBoundNano, requestOutputBound, requestTokens } from "./request-bound.ts";

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

/** The request as its route hands it to the limiter: with its one output bound, for a model whose maximum is `maxOutputTokens`. */
function routed(body: Record<string, unknown>, endpoint: EndpointName, maxOutputTokens: number): ParsedRequest {
  return { ...request(body), outputBound: outputBound(body, endpoint, maxOutputTokens, "lower") };
}

describe("requestBoundNano", () => {
  it("is the dearest way the request's tokens can be charged, at any prices and tiers; no output field: the model's maximum", () => {
    fc.assert(
      fc.property(scaledPrices, fc.nat({ max: 10_000 }), fc.option(fc.integer({ min: 1, max: 100_000 }), { nil: undefined }), fc.integer({ min: 1, max: 200_000 }), (prices, requestBytes, maxTokens, max) => {
        const body = maxTokens === undefined ? {} : { max_tokens: maxTokens };
        expect(requestBoundNano(routed(body, "messages", max), requestBytes, prices, "messages")).toBe(dearestWay(requestBytes, Math.min(maxTokens ?? max, max), 0, prices));
      }),
      { numRuns: 2000 },
    );
  });

  it("counts images for image generation and no output for embeddings", () => {
    fc.assert(
      fc.property(scaledPrices, fc.nat({ max: 10_000 }), fc.integer({ min: 1, max: 10 }), (prices, requestBytes, n) => {
        expect(requestBoundNano(routed({ n }, "images.generations", 4096), requestBytes, prices, "images.generations")).toBe(dearestWay(requestBytes, 0, n, prices));
        expect(requestBoundNano(routed({ max_tokens: 50 }, "embeddings", 4096), requestBytes, prices, "embeddings")).toBe(dearestWay(requestBytes, 0, 0, prices));
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
      fc.property(fc.nat({ max: 10_000_000 }), fc.integer({ min: 1, max: 200_000 }), (requestBytes, max) => {
        const bound = Math.min(7, max);
        expect(requestTokens(routed({ max_tokens: 7 }, "messages", max), requestBytes, "messages")).toBe(Math.ceil(requestBytes / 4) + bound);
        expect(requestTokens(routed({ max_tokens: 7 }, "embeddings", max), requestBytes, "embeddings")).toBe(Math.ceil(requestBytes / 4));
        expect(requestTokens(routed({ n: 2 }, "images.generations", max), requestBytes, "images.generations")).toBe(Math.ceil(requestBytes / 4));
      }),
      { numRuns: 500 },
    );
  });
});

describe("the reservation's output tokens (requestOutputBound)", () => {
  it("are the route's bound times the choices the request asks for: n answers on Chat Completions, one elsewhere", () => {
    fc.assert(
      fc.property(fc.constantFrom("chat.completions", "messages", "responses"), fc.integer({ min: 1, max: 128 }), fc.integer({ min: 1, max: 2 ** 31 - 1 }), (endpoint, n, bound) => {
        const parsed: ParsedRequest = { ...request({ model: "m", n }), outputBound: bound };
        const choices = endpoint === "chat.completions" ? n : 1;
        expect(requestOutputBound(parsed, endpoint)).toBe(bound * choices);
        expect(Number.isSafeInteger(bound * choices)).toBe(true);
      }),
    );
  });

  it("read nothing but the route's bound: a request without one is refused, never reserved for a guess from its fields", () => {
    for (const body of [{ max_tokens: 7 }, { max_completion_tokens: 7 }, { max_output_tokens: 7 }, {}]) {
      expect(() => requestOutputBound(request(body), "chat.completions")).toThrow(/without its output bound/);
      expect(() => requestTokens(request(body), 100, "messages")).toThrow(/without its output bound/);
    }
  });
});
