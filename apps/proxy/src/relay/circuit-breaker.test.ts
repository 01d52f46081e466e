import { describe, expect, it } from "vitest";
import { CircuitBreaker } from "./circuit-breaker.ts";

const targets = [{ upstream: { name: "a" } }, { upstream: { name: "b" } }, { upstream: { name: "c" } }];

describe("CircuitBreaker", () => {
  it("opens after the threshold of consecutive failures and cools down", () => {
    const breaker = new CircuitBreaker({ threshold: 2, cooldownMs: 1000 });
    breaker.recordFailure("a", 0);
    expect(breaker.isOpen("a", 1)).toBe(false);
    breaker.recordFailure("a", 1);
    expect(breaker.isOpen("a", 2)).toBe(true);
    expect(breaker.isOpen("a", 1002)).toBe(false);
  });

  it("a success closes it and resets the count", () => {
    const breaker = new CircuitBreaker({ threshold: 2, cooldownMs: 1000 });
    breaker.recordFailure("a", 0);
    breaker.recordSuccess("a");
    breaker.recordFailure("a", 1);
    expect(breaker.isOpen("a", 2)).toBe(false);
  });

  it("orders open targets last, keeping the configured order otherwise", () => {
    const breaker = new CircuitBreaker({ threshold: 1, cooldownMs: 1000 });
    breaker.recordFailure("a", 0);
    expect(breaker.order(targets, 10).map((t) => t.upstream.name)).toEqual(["b", "c", "a"]);
    expect(breaker.order(targets, 2000).map((t) => t.upstream.name)).toEqual(["a", "b", "c"]);
  });
});
