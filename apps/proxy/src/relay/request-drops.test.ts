import { describe, expect, it } from "vitest";
import type { UpstreamRecord } from "@gateway/redis-store";
import { WIRE_FORMATS } from "../shapes/wire-formats.ts";
import type { Target } from "../routing/routing-table.ts";
import { forwardedBetas } from "./attempt-context.ts";
import { planTargets } from "./attempt-plan.ts";
import { clientBetas, clientRequestDrops, countPlan, withRequestDrops } from "./request-drops.ts";

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

describe("withRequestDrops: mid-conversation system messages", () => {
  const withSystem = () => messages({ messages: [{ role: "user", content: "hi" }, { role: "system", content: "Be terse." }] });
  const folded = [{ role: "user", content: "hi" }, { role: "user", content: [{ type: "text", text: "<system-reminder>\nBe terse.\n</system-reminder>" }] }];

  it("a model that takes them: every target as planned, the same-shape one with the client's own request", () => {
    const request = withSystem();
    const plan = planTargets([target("a", "anthropic"), target("o", "openai")], WIRE_FORMATS.messages, request);
    const kept = withRequestDrops(plan, { ...none, endpoint: "messages", foldSystem: false });
    expect(kept).toBe(plan);
    expect(kept[0]!.upstreamRequest).toBe(request);
  });

  it("a model without them: folded for the Anthropic-shape target, never listed; the OpenAI-shape target keeps a system message in place", () => {
    const request = withSystem();
    const plan = planTargets([target("a", "anthropic"), target("b", "anthropic"), target("o", "openai")], WIRE_FORMATS.messages, request);
    const kept = withRequestDrops(plan, { ...none, endpoint: "messages", foldSystem: true });
    expect(kept[0]!.upstreamRequest.body.messages).toEqual(folded);
    // Targets that share a request share the folded one (made once).
    expect(kept[1]!.upstreamRequest).toBe(kept[0]!.upstreamRequest);
    expect(kept[0]!.droppedParams).toEqual([]);
    // The client's request itself is untouched.
    expect(request.body.messages).toEqual([{ role: "user", content: "hi" }, { role: "system", content: "Be terse." }]);
    expect(kept[2]).toBe(plan[2]);
    expect((kept[2]!.upstreamRequest.body.messages as { role: string }[]).map((message) => message.role)).toEqual(["user", "system"]);
  });

  it("chat -> Anthropic: a later system message is passed in place, or folded for a model without them", () => {
    const chat = WIRE_FORMATS["chat.completions"].parse({ model: "m", messages: [{ role: "system", content: "First." }, { role: "user", content: "hi" }, { role: "assistant", content: "yo" }, { role: "developer", content: "Now terse." }] });
    chat.outputBound = 10;
    const plan = planTargets([target("a", "anthropic")], WIRE_FORMATS["chat.completions"], chat);
    expect(withRequestDrops(plan, { ...none, endpoint: "chat.completions", foldSystem: false })[0]!.upstreamRequest.body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "hi" }] },
      { role: "assistant", content: [{ type: "text", text: "yo" }] },
      { role: "system", content: [{ type: "text", text: "Now terse." }] },
    ]);
    const [kept] = withRequestDrops(plan, { ...none, endpoint: "chat.completions", foldSystem: true });
    expect(kept!.upstreamRequest.body.system).toBe("First.");
    expect(kept!.upstreamRequest.body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "hi" }] },
      { role: "assistant", content: [{ type: "text", text: "yo" }] },
      { role: "user", content: [{ type: "text", text: "<system-reminder>\nNow terse.\n</system-reminder>" }] },
    ]);
  });

  it("Responses -> Anthropic: a later developer message is passed in place, or folded for a model without them", () => {
    const responses = WIRE_FORMATS.responses.parse({ model: "m", input: [{ role: "developer", content: "First." }, { role: "user", content: "hi" }, { role: "developer", content: "Now terse." }, { role: "user", content: "again" }] });
    responses.outputBound = 10;
    const plan = planTargets([target("a", "anthropic")], WIRE_FORMATS.responses, responses);
    expect((withRequestDrops(plan, { ...none, endpoint: "responses", foldSystem: false })[0]!.upstreamRequest.body.messages as { role: string }[]).map((message) => message.role)).toEqual(["user", "system", "user"]);
    const [kept] = withRequestDrops(plan, { ...none, endpoint: "responses", foldSystem: true });
    expect(kept!.upstreamRequest.body.system).toBe("First.");
    expect(kept!.upstreamRequest.body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "hi" }] },
      { role: "user", content: [{ type: "text", text: "<system-reminder>\nNow terse.\n</system-reminder>" }, { type: "text", text: "again" }] },
    ]);
    expect(kept!.droppedParams).toEqual([]);
  });

  it("nothing to fold (no system message inside messages): the planned targets as they were", () => {
    const plan = planTargets([target("a", "anthropic")], WIRE_FORMATS.messages, messages({ system: "top-level system is not folded" }));
    expect(withRequestDrops(plan, { ...none, endpoint: "messages", foldSystem: true })).toBe(plan);
  });
});

describe("countPlan: a token count plans as /v1/messages does", () => {
  const capabilities = { maxOutputTokens: 4096, contextWindow: 200_000, reasoning: false, sampling: true, midConversationSystem: false, vision: true, tools: true };
  const model = { dropParams: ["metadata"], capabilities };
  const count = (body: Record<string, unknown>) =>
    WIRE_FORMATS["messages.count_tokens"].parse({ model: "m", messages: [{ role: "user", content: "hi" }, { role: "system", content: "Be terse." }], ...body });

  it("each target's request and listed paths: the client's drops, then cross-shape the betas, then the translation's own", () => {
    const request = count({ metadata: { user_id: "u" }, thinking: { type: "enabled", budget_tokens: 2048 }, top_k: 3 });
    const client = clientRequestDrops(request, "messages.count_tokens", model, false);
    const [same, cross] = countPlan([target("a", "anthropic"), target("o", "openai")], client, model, true, false);
    expect(same!.translation).toBeNull();
    expect(same!.droppedParams).toEqual(["metadata", "thinking"]);
    // Folded for a model without mid-conversation system messages, as the send is.
    expect(same!.upstreamRequest.body).toEqual({ model: "m", top_k: 3, messages: [{ role: "user", content: "hi" }, { role: "user", content: [{ type: "text", text: "<system-reminder>\nBe terse.\n</system-reminder>" }] }] });
    expect(cross!.translation?.name).toBe("messages-to-chat");
    expect(cross!.droppedParams).toEqual(["metadata", "thinking", "anthropic-beta", "top_k"]);
    // The plan is what the send makes of the same body (bar max_tokens, which a count has not).
    const sent = messages(request.body);
    const relayed = withRequestDrops(planTargets([target("a", "anthropic"), target("o", "openai")], WIRE_FORMATS.messages, clientRequestDrops(sent, "messages", model, false).request), {
      modelDropped: client.dropped, dropParams: model.dropParams, betas: true, strict: false, endpoint: "messages", foldSystem: true,
    });
    expect(relayed.map((planned) => planned.droppedParams)).toEqual([same!.droppedParams, cross!.droppedParams]);
  });

  it("strict_params: betas toward an OpenAI-shape count are the 400 naming anthropic-beta; nothing dropped: the client's own request", () => {
    const plain = { dropParams: [], capabilities: { ...capabilities, midConversationSystem: true } };
    const request = count({});
    const client = clientRequestDrops(request, "messages.count_tokens", plain, true);
    expect(() => countPlan([target("o", "openai")], client, plain, true, true)).toThrow(expect.objectContaining({ code: "unsupported_feature", param: "anthropic-beta" }));
    const [same] = countPlan([target("a", "anthropic")], client, plain, true, true);
    expect(same!.upstreamRequest).toBe(request);
    expect(same!.droppedParams).toEqual([]);
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
