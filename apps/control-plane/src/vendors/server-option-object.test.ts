import { scaledUnitPrices } from "@gateway/contracts";
import { describe, expect, it } from "vitest";
import { perImageUsd, perMillionTokensUsd } from "./server-option-object.ts";

describe("server option prices", () => {
  const scaled = (picoPerToken: bigint, multiplierBps: number) =>
    scaledUnitPrices({ model: { inputPrice: picoPerToken, outputPrice: 0n, cachedInputPrice: 0n, cacheWritePrice: 0n, cacheWrite1hPrice: 0n, imagePrice: 40_000_000_000n, requestPrice: 0n, webSearchPrice: 0n }, multiplierBps, overrides: null });

  it("shows USD per million tokens and per image, 6 decimals", () => {
    expect(perMillionTokensUsd(scaled(150_000n, 10_000).inputPrice)).toBe("0.150000");
    expect(perMillionTokensUsd(scaled(15_000_000n, 10_000).inputPrice)).toBe("15.000000");
    expect(perImageUsd(scaled(0n, 10_000).imagePrice)).toBe("0.040000");
  });

  it("applies the multiplier exactly and rounds half up once, when shown", () => {
    expect(perMillionTokensUsd(scaled(150_000n, 15_000).inputPrice)).toBe("0.225000");
    // 3 pico x 1.5 = 4.5 pico per token = 4.5 micro-USD per million tokens -> 0.000005
    expect(perMillionTokensUsd(scaled(3n, 15_000).inputPrice)).toBe("0.000005");
    expect(perImageUsd(scaled(0n, 12_500).imagePrice)).toBe("0.050000");
  });
});
