import { describe, expect, it } from "vitest";
import type { ModelRecord, UpstreamRecord } from "@gateway/redis-store";
import { CircuitBreaker } from "../relay/circuit-breaker.ts";
import { TargetSet } from "./target-set.ts";

const upstream = (name: string): UpstreamRecord => ({
  name,
  shape: "openai",
  baseUrl: "http://x",
  secretEnv: null,
  priority: 0,
  weight: 1,
  connectTimeoutMs: 1,
  firstByteTimeoutMs: 1, responseTimeoutMs: 1,
  supportsResponses: true,
  dropBetas: [],
});
const upstreams = Object.fromEntries(["a", "b", "c", "d"].map((name) => [name, upstream(name)]));

function model(targets: { upstream: string; weight: number; priority: number }[]): ModelRecord {
  return { name: "m", displayName: "m", ownedBy: "gateway", created: 0, aliases: [], dropParams: [], position: 0, targets: targets.map((t) => ({ ...t, model: `${t.upstream}-model` })), capabilities: { maxOutputTokens: 4096, contextWindow: 128000, reasoning: false, sampling: true, midConversationSystem: true, vision: true, tools: true } };
}

/** All circuits closed, except the names given. */
const health = (open: string[] = []) => ({ usable: (name: string) => !open.includes(name) });
const names = (set: TargetSet, open: string[] = []) => set.order(health(open), 0).map((target) => target.upstream.name);

describe("TargetSet", () => {
  it("spreads first picks by weight over the lowest priority, exactly and interleaved", () => {
    const set = new TargetSet(model([{ upstream: "c", weight: 5, priority: 1 }, { upstream: "a", weight: 3, priority: 0 }, { upstream: "b", weight: 1, priority: 0 }]), upstreams);
    const firsts = Array.from({ length: 1000 }, () => names(set)[0]);
    expect(firsts.filter((name) => name === "a")).toHaveLength(750);
    expect(firsts.filter((name) => name === "b")).toHaveLength(250);
    // Smooth: never more than three a's in a row for a 3:1 split.
    expect(firsts.slice(0, 8).join("")).toBe("aabaaaba");
  });

  it("after the pick: the priority's other healthy targets heavier first, then the next priorities, then open circuits", () => {
    const set = new TargetSet(
      model([
        { upstream: "d", weight: 1, priority: 2 },
        { upstream: "a", weight: 1, priority: 0 },
        { upstream: "c", weight: 1, priority: 1 },
        { upstream: "b", weight: 4, priority: 0 },
      ]),
      upstreams,
    );
    expect(set.targets.map((t) => t.upstream.name)).toEqual(["b", "a", "c", "d"]);
    expect(names(set)).toEqual(["b", "a", "c", "d"]);
    // b's circuit is open: a is the only healthy target of priority 0; b goes last.
    expect(names(set, ["b"])).toEqual(["a", "c", "d", "b"]);
    // All of priority 0 open: priority 1 serves, priority 0 is the last resort in priority order.
    expect(names(set, ["a", "b"])).toEqual(["c", "d", "b", "a"]);
  });

  it("spreads by weight over the targets of a higher priority when every lower one is open", () => {
    const set = new TargetSet(model([{ upstream: "a", weight: 1, priority: 0 }, { upstream: "b", weight: 1, priority: 1 }, { upstream: "c", weight: 1, priority: 1 }]), upstreams);
    const firsts = Array.from({ length: 100 }, () => names(set, ["a"])[0]);
    expect(firsts.filter((name) => name === "b")).toHaveLength(50);
    expect(firsts.filter((name) => name === "c")).toHaveLength(50);
  });

  it("keeps the split among the healthy targets while one is open", () => {
    const set = new TargetSet(model([{ upstream: "a", weight: 2, priority: 0 }, { upstream: "b", weight: 1, priority: 0 }, { upstream: "c", weight: 1, priority: 0 }]), upstreams);
    const firsts = Array.from({ length: 300 }, () => names(set, ["a"])[0]);
    expect(firsts.filter((name) => name === "b")).toHaveLength(150);
    expect(firsts.filter((name) => name === "c")).toHaveLength(150);
  });

  it("skips targets whose upstream the snapshot does not have", () => {
    const set = new TargetSet(model([{ upstream: "gone", weight: 1, priority: 0 }, { upstream: "a", weight: 1, priority: 0 }]), upstreams);
    expect(names(set)).toEqual(["a"]);
  });

  it("claims a half-open circuit's probe through CircuitBreaker.usable, once", () => {
    const breaker = new CircuitBreaker({ threshold: 1, cooldownMs: 1000 });
    const set = new TargetSet(model([{ upstream: "a", weight: 1, priority: 0 }, { upstream: "b", weight: 1, priority: 1 }]), upstreams);
    breaker.recordFailure("a", 0);
    expect(set.order(breaker, 10).map((t) => t.upstream.name)).toEqual(["b", "a"]);
    expect(set.order(breaker, 1500).map((t) => t.upstream.name)).toEqual(["a", "b"]); // the probe
    expect(set.order(breaker, 1501).map((t) => t.upstream.name)).toEqual(["b", "a"]);
  });

  describe("through an outage (issue 40)", () => {
    /** The relay in miniature: each request tries its order until a target answers; `down` ones fail. */
    function serve(set: TargetSet, breaker: CircuitBreaker, clock: { now: number }, requests: number, down: ReadonlySet<string>) {
      const counts: Record<string, number> = {};
      const firsts: string[] = [];
      for (let i = 0; i < requests; i += 1) {
        clock.now += 1;
        for (const target of set.order(breaker, clock.now)) {
          const name = target.upstream.name;
          if (down.has(name)) {
            breaker.recordFailure(name, clock.now);
            continue;
          }
          breaker.recordSuccess(name);
          counts[name] = (counts[name] ?? 0) + 1;
          firsts.push(name);
          break;
        }
      }
      return { counts, firsts };
    }

    for (const failing of ["a", "b"]) {
      it(`3:1 weights hold from the first request after ${failing}'s circuit opened and closed again`, () => {
        const set = new TargetSet(model([{ upstream: "c", weight: 1, priority: 1 }, { upstream: "a", weight: 3, priority: 0 }, { upstream: "b", weight: 1, priority: 0 }]), upstreams);
        const breaker = new CircuitBreaker({ threshold: 2, cooldownMs: 1000 });
        const clock = { now: 0 };
        expect(serve(set, breaker, clock, 200, new Set()).counts).toEqual({ a: 150, b: 50 });
        const other = failing === "a" ? "b" : "a";
        expect(serve(set, breaker, clock, 200, new Set([failing])).counts).toEqual({ [other]: 200 });
        clock.now += 2000;
        const after = serve(set, breaker, clock, 200, new Set());
        // The half-open probe is the first request's own pick, then the split holds at once.
        expect(after.firsts[0]).toBe(failing);
        expect(after.counts).toEqual({ a: 150, b: 50 });
        for (const size of [4, 20, 40]) expect(after.firsts.slice(0, size).filter((name) => name === "a")).toHaveLength((size * 3) / 4);
      });
    }

    it("a recovered target is not owed the turns it missed, nor does it owe the ones it failed", () => {
      const set = new TargetSet(model([{ upstream: "a", weight: 1, priority: 0 }, { upstream: "b", weight: 1, priority: 0 }]), upstreams);
      for (let i = 0; i < 7; i += 1) names(set, ["a"]);
      const firsts = Array.from({ length: 10 }, () => names(set)[0]);
      expect(firsts.join("")).toMatch(/^(ab){5}$/);
    });
  });
});

