import { describe, expect, it } from "vitest";
import { percentile, Samples, summarize } from "./percentiles.ts";

describe("percentile (nearest rank)", () => {
  const hundred = Float64Array.from({ length: 100 }, (_, index) => index + 1);

  it("is a value some request really had, never an interpolation", () => {
    expect(percentile(hundred, 50)).toBe(50);
    expect(percentile(hundred, 99)).toBe(99);
    expect(percentile(hundred, 99.9)).toBe(100);
    expect(percentile(hundred, 100)).toBe(100);
    expect(percentile(hundred, 0)).toBe(1);
  });

  it("rounds the rank up on small samples", () => {
    expect(percentile([1, 2, 3], 50)).toBe(2);
    expect(percentile([1, 2, 3, 4], 50)).toBe(2);
    expect(percentile([10], 99.9)).toBe(10);
  });

  it("is NaN with nothing recorded", () => {
    expect(percentile([], 50)).toBeNaN();
    expect(summarize([]).count).toBe(0);
    expect(summarize([]).p99).toBeNaN();
  });
});

describe("summarize", () => {
  it("sorts numerically, not as text", () => {
    const summary = summarize([10, 9, 100, 2, 1]);
    expect(summary.p50).toBe(9);
    expect(summary.max).toBe(100);
    expect(summary.mean).toBe(24.4);
  });

  it("p99.9 needs a thousand samples to differ from the max", () => {
    const values = Array.from({ length: 2000 }, (_, index) => index / 1000);
    const summary = summarize(values);
    expect(summary.p999).toBe(1.998);
    expect(summary.max).toBe(1.999);
  });
});

describe("Samples", () => {
  it("grows past its first buffer and keeps every value", () => {
    const samples = new Samples();
    for (let index = 0; index < 5000; index += 1) samples.push(5000 - index);
    expect(samples.length).toBe(5000);
    expect(samples.values()[0]).toBe(5000);
    expect(samples.summary()).toMatchObject({ count: 5000, p50: 2500, max: 5000 });
  });
});
