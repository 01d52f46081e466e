import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import type { ModelCapabilities, UpstreamRecord } from "@gateway/redis-store";
import { WIRE_FORMATS } from "../shapes/wire-formats.ts";
import type { EndpointName } from "../core/wire-format.ts";
import type { Target } from "../routing/routing-table.ts";
import { planTargets } from "./attempt-plan.ts";
import { clientRequestDrops, withRequestDrops } from "./request-drops.ts";

const CAPABLE: ModelCapabilities = { maxOutputTokens: 16384, contextWindow: 128_000, reasoning: true, sampling: true, midConversationSystem: true, vision: true, tools: true };
const model = (capabilities: Partial<ModelCapabilities>, dropParams: string[] = []) => ({ dropParams, capabilities: { ...CAPABLE, ...capabilities } });
const target = (name: string, shape: "openai" | "anthropic"): Target => ({
  model: `${name}-model`,
  upstream: { name, shape, baseUrl: "http://x", secretEnv: null, priority: 0, weight: 1, connectTimeoutMs: 1, firstByteTimeoutMs: 1, responseTimeoutMs: 1, supportsResponses: true, dropBetas: [] } satisfies UpstreamRecord,
});

const hi = [{ role: "user", content: "hi" }];
const parse = (endpoint: "chat.completions" | "messages" | "responses", body: Record<string, unknown>) => {
  const parsed = WIRE_FORMATS[endpoint].parse({ model: "m", ...body });
  parsed.outputBound = 100;
  return parsed;
};

describe("clientRequestDrops: what the model's capabilities refuse, by the client's paths", () => {
  it.each<[string, EndpointName, Record<string, unknown>, Partial<ModelCapabilities>, string[], Record<string, unknown>]>([
    ["chat reasoning_effort on a model without reasoning", "chat.completions", { messages: hi, reasoning_effort: "high", temperature: 0.2 }, { reasoning: false }, ["reasoning_effort"], { messages: hi, temperature: 0.2 }],
    ["chat sampling on a model without it", "chat.completions", { messages: hi, temperature: 0.2, top_p: 0.9, seed: 1 }, { sampling: false }, ["temperature", "top_p"], { messages: hi, seed: 1 }],
    ["Responses reasoning, member by member, and encrypted reasoning asked for", "responses", { input: "hi", reasoning: { effort: "low", summary: "auto" }, include: ["reasoning.encrypted_content", "message.output_text.logprobs"] }, { reasoning: false }, ["reasoning.effort", "reasoning.summary", "include[0]"], { input: "hi", include: ["message.output_text.logprobs"] }],
    ["Responses: only encrypted reasoning in include, so include goes", "responses", { input: "hi", include: ["reasoning.encrypted_content"] }, { reasoning: false }, ["include[0]"], { input: "hi" }],
    ["Messages thinking and output_config.effort (Claude Code), output_config.format kept", "messages", { max_tokens: 5, messages: hi, thinking: { type: "adaptive" }, output_config: { effort: "high", format: { type: "json_schema", schema: {} } } }, { reasoning: false }, ["thinking", "output_config.effort"], { max_tokens: 5, messages: hi, output_config: { format: { type: "json_schema", schema: {} } } }],
    ["Messages output_config with only effort goes whole", "messages", { max_tokens: 5, messages: hi, output_config: { effort: "medium" } }, { reasoning: false }, ["output_config.effort"], { max_tokens: 5, messages: hi }],
    ["Messages top_k with temperature on a model without sampling", "messages", { max_tokens: 5, messages: hi, top_k: 3, temperature: 1 }, { sampling: false }, ["temperature", "top_k"], { max_tokens: 5, messages: hi }],
    ["a disabled thinking asks for nothing the model does not do: removed, not listed", "messages", { max_tokens: 5, messages: hi, thinking: { type: "disabled" } }, { reasoning: false }, [], { max_tokens: 5, messages: hi }],
    ["reasoning_effort none: removed, not listed", "chat.completions", { messages: hi, reasoning_effort: "none" }, { reasoning: false }, [], { messages: hi }],
  ])("%s", (_name, endpoint, body, capabilities, listed, sent) => {
    const parsed = parse(endpoint as "chat.completions", body);
    const before = JSON.stringify(parsed.body);
    const { request, dropped } = clientRequestDrops(parsed, endpoint, model(capabilities), false);
    expect(dropped).toEqual(listed);
    expect(request.body).toEqual({ model: "m", ...sent });
    // The client's own body is never edited (the limiter and the response translators still read it).
    expect(JSON.stringify(parsed.body)).toBe(before);
    if (listed.length > 0) {
      expect(() => clientRequestDrops(parsed, endpoint, model(capabilities), true)).toThrow(expect.objectContaining({ code: "unsupported_feature", param: listed[0] }));
    }
  });

  it("nothing to drop: the same request object and a shared empty list (no copy, the client's bytes can be relayed)", () => {
    for (const capabilities of [{}, { reasoning: false }, { sampling: false }, { reasoning: false, sampling: false }]) {
      const parsed = parse("chat.completions", { messages: hi, max_tokens: 5 });
      const result = clientRequestDrops(parsed, "chat.completions", model(capabilities), true);
      expect(result.request).toBe(parsed);
      expect(result.dropped).toHaveLength(0);
    }
    const thinking = parse("messages", { max_tokens: 5, messages: hi, thinking: { type: "enabled", budget_tokens: 1024 }, temperature: 1 });
    expect(clientRequestDrops(thinking, "messages", model({}), false).request).toBe(thinking);
  });

  it("drop_params come first and are never refused under strict_params; a field in both is listed once", () => {
    const parsed = parse("chat.completions", { messages: hi, temperature: 0.5, reasoning_effort: "low" });
    const { request, dropped } = clientRequestDrops(parsed, "chat.completions", model({ sampling: false }, ["temperature"]), false);
    expect(dropped).toEqual(["temperature"]);
    expect(request.body).toEqual({ model: "m", messages: hi, reasoning_effort: "low" });
    expect(clientRequestDrops(parse("chat.completions", { messages: hi, temperature: 0.5 }), "chat.completions", model({}, ["temperature"]), true).dropped).toEqual(["temperature"]);
  });

  const fieldsOf: Record<"chat.completions" | "messages" | "responses", Record<string, fc.Arbitrary<unknown>>> = {
    "chat.completions": { reasoning_effort: fc.constantFrom("low", "medium", "high"), temperature: fc.double({ min: 0, max: 2, noNaN: true }), top_p: fc.double({ min: 0, max: 1, noNaN: true }), seed: fc.integer(), user: fc.string() },
    messages: { thinking: fc.constant({ type: "enabled", budget_tokens: 2048 }), output_config: fc.constant({ effort: "high" }), temperature: fc.double({ min: 0, max: 1, noNaN: true }), top_k: fc.nat(50), metadata: fc.constant({ user_id: "u" }) },
    responses: { reasoning: fc.constant({ effort: "high" }), temperature: fc.double({ min: 0, max: 2, noNaN: true }), top_p: fc.double({ min: 0, max: 1, noNaN: true }), store: fc.boolean(), text: fc.constant({ verbosity: "low" }) },
  };
  const reasoningPath: Record<string, string> = { reasoning_effort: "reasoning_effort", thinking: "thinking", output_config: "output_config.effort", reasoning: "reasoning.effort" };
  const sampling = new Set(["temperature", "top_p", "top_k"]);

  it("property: exactly the fields the model does not take are gone and listed; every other field is the client's own value", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("chat.completions" as const, "messages" as const, "responses" as const).chain((endpoint) =>
          fc.tuple(fc.constant(endpoint), fc.record(fieldsOf[endpoint], { requiredKeys: [] }), fc.boolean(), fc.boolean()),
        ),
        ([endpoint, extra, reasoning, samples]) => {
          const base = endpoint === "responses" ? { input: "hi" } : endpoint === "messages" ? { max_tokens: 5, messages: hi } : { messages: hi };
          const parsed = parse(endpoint, { ...base, ...extra });
          const { request, dropped } = clientRequestDrops(parsed, endpoint, model({ reasoning, sampling: samples }), false);
          const refused = Object.keys(extra).filter((field) => (!reasoning && field in reasoningPath) || (!samples && sampling.has(field)));
          expect([...dropped].sort()).toEqual(refused.map((field) => reasoningPath[field] ?? field).sort());
          for (const field of Object.keys(extra)) {
            if (refused.includes(field)) expect(request.body).not.toHaveProperty(field);
            else expect(request.body[field]).toBe(parsed.body[field]);
          }
          if (refused.length === 0) expect(request).toBe(parsed);
        },
      ),
      { numRuns: 400 },
    );
  });
});

const captured = (name: string) =>
  (JSON.parse(readFileSync(new URL(`../../test/client-compat/fixtures/claude-code-2.1/${name}`, import.meta.url), "utf8")) as { body: Record<string, unknown> }).body;

describe("Claude Code 2.1 on gpt-4o-mini (issue 36)", () => {
  it("no reasoning_effort reaches the OpenAI upstream; thinking and output_config.effort are listed by their Messages paths", () => {
    const parsed = parse("messages", captured("gpt-4o-mini-system-role.json"));
    const gpt4oMini = model({ reasoning: false, midConversationSystem: true });
    const client = clientRequestDrops(parsed, "messages", gpt4oMini, false);
    const [planned] = withRequestDrops(planTargets([target("o", "openai")], WIRE_FORMATS.messages, client.request), {
      modelDropped: client.dropped, dropParams: [], betas: false, strict: false, endpoint: "messages", foldSystem: false,
    });
    const chat = planned!.upstreamRequest.body;
    expect(chat).not.toHaveProperty("reasoning_effort");
    expect(planned!.droppedParams).toEqual(expect.arrayContaining(["thinking", "output_config.effort"]));
    // The mid-conversation system message is a system message in its place.
    expect((chat.messages as { role: string }[]).map((message) => message.role)).toEqual(["system", "user", "system"]);
  });

  it("before the capability drop, the same request did ask for reasoning_effort (what a real gpt-4o-mini refuses)", () => {
    const parsed = parse("messages", captured("gpt-4o-mini-system-role.json"));
    const [planned] = planTargets([target("o", "openai")], WIRE_FORMATS.messages, parsed);
    expect(planned!.upstreamRequest.body.reasoning_effort).toBe("high");
  });
});
