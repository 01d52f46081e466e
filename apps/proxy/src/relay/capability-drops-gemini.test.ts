import { describe, expect, it } from "vitest";
import type { ModelCapabilities } from "@gateway/redis-store";
import { WIRE_FORMATS } from "../shapes/wire-formats.ts";
import { clientRequestDrops } from "./request-drops.ts";

const CAPABLE: ModelCapabilities = { maxOutputTokens: 16384, contextWindow: 128_000, reasoning: true, sampling: true, midConversationSystem: true, vision: true, tools: true };
const model = (capabilities: Partial<ModelCapabilities>) => ({ dropParams: [], capabilities: { ...CAPABLE, ...capabilities } });
const contents = [{ role: "user", parts: [{ text: "hi" }] }];
// Gemini CLI's generationConfig (captured): sampling and thinking inside it.
const CLI_CONFIG = { temperature: 1, topP: 0.95, topK: 64, maxOutputTokens: 500, thinkingConfig: { includeThoughts: true, thinkingLevel: "HIGH" } };

function drops(capabilities: Partial<ModelCapabilities>, generationConfig: Record<string, unknown>) {
  const parsed = WIRE_FORMATS["gemini.generate_content"].parse({ contents, generationConfig }, { model: "m", stream: false });
  parsed.outputBound = 500;
  return clientRequestDrops(parsed, "gemini.generate_content", model(capabilities), false);
}

describe("clientRequestDrops on a Gemini client's body (inside generationConfig)", () => {
  it("a model without sampling: temperature, topP and topK go, listed by their paths; the rest stays", () => {
    const { request, dropped } = drops({ sampling: false }, CLI_CONFIG);
    expect(dropped).toEqual(["generationConfig.temperature", "generationConfig.topP", "generationConfig.topK"]);
    expect(request.body.generationConfig).toEqual({ maxOutputTokens: 500, thinkingConfig: CLI_CONFIG.thinkingConfig });
  });

  it("a model without reasoning: thinkingConfig goes (listed); a budget of 0 asks for nothing and goes unlisted", () => {
    expect(drops({ reasoning: false }, CLI_CONFIG).dropped).toEqual(["generationConfig.thinkingConfig"]);
    const off = drops({ reasoning: false }, { thinkingConfig: { thinkingBudget: 0 } });
    expect(off.dropped).toEqual([]);
    expect(off.request.body.generationConfig).toBeUndefined();
  });

  it("a capable model: the client's own body, untouched (same object: its bytes can be relayed)", () => {
    const parsed = WIRE_FORMATS["gemini.generate_content"].parse({ contents, generationConfig: CLI_CONFIG }, { model: "m", stream: false });
    const { request, dropped } = clientRequestDrops(parsed, "gemini.generate_content", model({}), false);
    expect(dropped).toEqual([]);
    expect(request.body).toBe(parsed.body);
  });
});
