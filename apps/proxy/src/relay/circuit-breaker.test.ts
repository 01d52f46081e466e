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

  it("after the cooldown lets exactly one request probe; the others keep it last until the probe reports", () => {
    const breaker = new CircuitBreaker({ threshold: 1, cooldownMs: 1000 });
    breaker.recordFailure("a", 0);
    const names = (now: number) => breaker.order(targets, now).map((t) => t.upstream.name);
    expect(names(1500)).toEqual(["a", "b", "c"]); // the probe
    expect(names(1501)).toEqual(["b", "c", "a"]);
    expect(names(1600)).toEqual(["b", "c", "a"]);
    breaker.recordFailure("a", 1700); // the probe failed: another cooldown
    expect(names(2600)).toEqual(["b", "c", "a"]);
    expect(names(2701)).toEqual(["a", "b", "c"]); // the next probe
    breaker.recordSuccess("a");
    expect(names(2702)).toEqual(["a", "b", "c"]);
    expect(names(2703)).toEqual(["a", "b", "c"]);
  });

  it("a probe that never reports frees the slot after another cooldown", () => {
    const breaker = new CircuitBreaker({ threshold: 1, cooldownMs: 1000 });
    breaker.recordFailure("a", 0);
    expect(breaker.order(targets, 1000)[0]!.upstream.name).toBe("a");
    expect(breaker.order(targets, 1999)[0]!.upstream.name).toBe("b");
    expect(breaker.order(targets, 2000)[0]!.upstream.name).toBe("a");
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
    expect(breaker.order(targets, 2001).map((t) => t.upstream.name)).toEqual(["b", "c", "a"]);
  });
});
