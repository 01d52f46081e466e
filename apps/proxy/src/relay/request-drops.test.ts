import { describe, expect, it } from "vitest";
import type { UpstreamRecord } from "@gateway/redis-store";
import { WIRE_FORMATS } from "../upstreams/index.ts";
import type { Target } from "../routing/routing-table.ts";
import { forwardedBetas } from "./attempt-context.ts";
import { planTargets } from "./attempt-plan.ts";
import { clientBetas, withRequestDrops } from "./request-drops.ts";

const target = (name: string, shape: "openai" | "anthropic"): Target => ({
  model: `${name}-model`,
  upstream: { name, shape, baseUrl: "http://x", secretEnv: null, priority: 0, weight: 1, connectTimeoutMs: 1, firstByteTimeoutMs: 1, responseTimeoutMs: 1, supportsResponses: true, dropBetas: [] } satisfies UpstreamRecord,
});

const messages = (body: Record<string, unknown>) => WIRE_FORMATS.messages.parse({ model: "m", max_tokens: 10, messages: [{ role: "user", content: "hi" }], ...body });
const none = { modelDropped: [], dropParams: [], betas: false, strict: false };

describe("withRequestDrops", () => {
  it("same shape: only the model's drop_params are listed; cross-shape: betas, then fields the translation wrote, then the translation's own", () => {
    const request = messages({ top_k: 3, metadata: { user_id: "u" } });
    const plan = planTargets([target("a", "anthropic"), target("o", "openai")], WIRE_FORMATS.messages, request);
    const kept = withRequestDrops(plan, { modelDropped: ["temperature"], dropParams: ["temperature", "user"], betas: true, strict: false });
    expect(kept.map((planned) => planned.droppedParams)).toEqual([["temperature"], ["temperature", "anthropic-beta", "user", "top_k"]]);
    expect(kept[1]!.upstreamRequest.body).not.toHaveProperty("user");
    expect(kept[0]!.upstreamRequest).toBe(request);
  });

  it("nothing to add: the planned targets as they were", () => {
    const plan = planTargets([target("o", "openai")], WIRE_FORMATS.messages, messages({}));
    expect(withRequestDrops(plan, none)[0]).toBe(plan[0]);
  });

  it("strict: betas keep a request off cross-shape targets; none left is the 400 naming anthropic-beta", () => {
    const request = messages({});
    const mixed = planTargets([target("o", "openai"), target("a", "anthropic")], WIRE_FORMATS.messages, request);
    expect(withRequestDrops(mixed, { ...none, betas: true, strict: true }).map((planned) => planned.target.upstream.name)).toEqual(["a"]);
    const crossOnly = planTargets([target("o", "openai")], WIRE_FORMATS.messages, request);
    expect(() => withRequestDrops(crossOnly, { ...none, betas: true, strict: true })).toThrow(expect.objectContaining({ code: "unsupported_feature", param: "anthropic-beta" }));
  });
});

describe("anthropic-beta", () => {
  it.each<[string | string[] | undefined, readonly string[] | undefined, string | null]>([
    ["a,b", undefined, "a,b"],
    ["oauth-2025-04-20, interleaved-thinking-2025-05-14", undefined, "interleaved-thinking-2025-05-14"],
    [["a, b", "c", "a"], ["b"], "a,c"],
    ["oauth-2025-04-20", undefined, null],
    ["", [], null],
    [undefined, [], null],
  ])("%o minus %o -> %o", (value, dropBetas, expected) => {
    expect(forwardedBetas(value, dropBetas)).toBe(expected);
  });

  it("several headers and comma-separated lists are one list", () => {
    expect(clientBetas(["a, b", " c "])).toEqual(["a", "b", "c"]);
  });
});
