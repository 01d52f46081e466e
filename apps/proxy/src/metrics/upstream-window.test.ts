import { describe, expect, it } from "vitest";
import type { Attempt } from "@gateway/contracts";
import { CircuitBreaker } from "../relay/circuit-breaker.ts";
import { UpstreamWindows } from "./upstream-window.ts";

function attempt(cause: Attempt["cause"], durationMs: number, ttfbMs: number | null = null): Attempt {
  return { upstream: "a", upstreamModel: "m", cause, status: cause === "ok" ? 200 : null, durationMs, ttfbMs };
}

describe("UpstreamWindows", () => {
  it("counts the last minute's attempts by cause, with percentiles within 10%", () => {
    const windows = new UpstreamWindows();
    const now = 1_000_000_000;
    for (let ms = 1; ms <= 100; ms += 1) windows.observe(attempt("ok", ms * 10, ms), now);
    windows.observe(attempt("http_5xx", 5), now);
    windows.observe(attempt("timeout", 5), now);
    const health = windows.health("a", "closed", now);
    expect(health.attempts).toBe(102);
    expect(health.failures).toEqual({ http_5xx: 1, timeout: 1 });
    expect(health.p50Ms! / 500).toBeGreaterThan(0.9);
    expect(health.p50Ms! / 500).toBeLessThanOrEqual(1.101);
    expect(health.p99Ms! / 990).toBeGreaterThan(0.9);
    expect(health.p99Ms! / 990).toBeLessThanOrEqual(1.101);
    expect(health.ttfbP50Ms! / 50).toBeGreaterThan(0.9);
    expect(health.ttfbP50Ms! / 50).toBeLessThanOrEqual(1.101);
  });

  it("forgets what is older than a minute, and reports none as null", () => {
    const windows = new UpstreamWindows();
    const start = 2_000_000_000;
    windows.observe(attempt("http_429", 100), start);
    expect(windows.health("a", "open", start + 30_000)).toMatchObject({ attempts: 1, failures: { http_429: 1 }, circuit: "open" });
    expect(windows.health("a", "closed", start + 65_000)).toEqual({ attempts: 0, failures: {}, circuit: "closed", p50Ms: null, p99Ms: null, ttfbP50Ms: null });
    // A slot reused a minute later starts empty.
    windows.observe(attempt("ok", 100), start + 60_000);
    expect(windows.health("a", "closed", start + 60_000).attempts).toBe(1);
    expect([...windows.names()]).toEqual(["a"]);
  });
});

describe("CircuitBreaker.state", () => {
  it("is closed, then open while cooling down, then half-open until a probe's result", () => {
    const breaker = new CircuitBreaker({ threshold: 2, cooldownMs: 1_000 });
    const now = 5_000;
    expect(breaker.state("a", now)).toBe("closed");
    breaker.recordFailure("a", now);
    expect(breaker.state("a", now)).toBe("closed");
    breaker.recordFailure("a", now);
    expect(breaker.state("a", now + 10)).toBe("open");
    expect(breaker.state("a", now + 1_000)).toBe("half_open");
    breaker.recordSuccess("a");
    expect(breaker.state("a", now + 1_000)).toBe("closed");
    expect([...breaker.tracked()]).toEqual([]);
  });
});
