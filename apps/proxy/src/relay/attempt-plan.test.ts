import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { UpstreamRecord } from "@gateway/redis-store";
import { WIRE_FORMATS } from "../shapes/wire-formats.ts";
import type { Target } from "../routing/routing-table.ts";
import { nextTarget, planTargets } from "./attempt-plan.ts";

const target = (name: string, shape: "openai" | "anthropic", supportsResponses = true): Target => ({
  model: `${name}-model`,
  upstream: { name, shape, baseUrl: "http://x", secretEnv: null, priority: 0, weight: 1, connectTimeoutMs: 1, firstByteTimeoutMs: 1, responseTimeoutMs: 1, supportsResponses, dropBetas: [] } satisfies UpstreamRecord,
});

const chat = (body: Record<string, unknown>) => WIRE_FORMATS["chat.completions"].parse({ model: "m", messages: [{ role: "user", content: "hi" }], ...body });

describe("planTargets", () => {
  it("same-shape targets relay the request as is; others carry the translated request, translated once", () => {
    // The route's output bound: what the translation sends as Anthropic's max_tokens.
    const request = { ...chat({}), outputBound: 4096 };
    const plan = planTargets([target("a", "anthropic"), target("o", "openai"), target("b", "anthropic")], WIRE_FORMATS["chat.completions"], request);
    expect(plan.map((planned) => planned.translation?.name ?? null)).toEqual(["chat-to-messages", null, "chat-to-messages"]);
    expect(plan[1]!.upstreamRequest).toBe(request);
    expect(plan[0]!.upstreamRequest.body).toMatchObject({ max_tokens: 4096, messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }] });
    expect(plan[2]!.upstreamRequest).toBe(plan[0]!.upstreamRequest);
  });

  it("a request one shape cannot express is served by the targets that can", () => {
    const plan = planTargets([target("a", "anthropic"), target("o", "openai")], WIRE_FORMATS["chat.completions"], chat({ n: 2 }));
    expect(plan.map((planned) => planned.target.upstream.name)).toEqual(["o"]);
  });

  it("no target can take it: the 400 naming the field", () => {
    expect(() => planTargets([target("a", "anthropic")], WIRE_FORMATS["chat.completions"], chat({ n: 2 }))).toThrow(expect.objectContaining({ code: "unsupported_feature", param: "n" }));
  });

  it("Responses goes through chat on an OpenAI upstream without the Responses API", () => {
    const request = WIRE_FORMATS.responses.parse({ model: "m", input: "hi" });
    const plan = planTargets([target("o", "openai", false), target("r", "openai")], WIRE_FORMATS.responses, request);
    expect(plan.map((planned) => [planned.translation?.name ?? null, planned.translation?.upstreamWire.upstreamPath ?? null])).toEqual([
      ["responses-to-chat", "/chat/completions"],
      [null, null],
    ]);
  });
});

describe("nextTarget", () => {
  it("walks the planned order from where it left off, never to a target that timed out, and says when none is left", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }), fc.nat(20), (count, outs, from) => {
        const timedOut = new Set(outs.slice(0, count).flatMap((out, index) => (out ? [index] : [])));
        const next = nextTarget(count, from, timedOut);
        if (timedOut.size === count) {
          expect(next).toBe(-1);
          return;
        }
        expect(timedOut.has(next)).toBe(false);
        // The first target from `from` on (wrapping round) that has not timed out.
        let expected = from % count;
        while (timedOut.has(expected)) expected = (expected + 1) % count;
        expect(next).toBe(expected);
      }),
    );
  });

  it("gives a one-target model no second try after its timeout, and cycles as before when nothing timed out", () => {
    expect(nextTarget(1, 1, new Set([0]))).toBe(-1);
    expect([0, 1, 2, 3].map((from) => nextTarget(2, from, null))).toEqual([0, 1, 0, 1]);
  });
});
