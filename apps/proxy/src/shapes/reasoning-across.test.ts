import { describe, expect, it } from "vitest";
import type { ModelCapabilities } from "@gateway/redis-store";
import { DroppedParams } from "../core/drops.ts";
import { parsedClient } from "./__fixtures__/pairs.ts";
import { translationBetween } from "./index.ts";

/*
 * Reasoning asked for in one shape reaches every other: a level as the level (or its budget where
 * the model takes a budget), a budget as that number where the model takes one, and as its nearest
 * level (core/reasoning.ts `reasoningLevel`, the one scale) where the model takes levels only.
 */

const BUDGET_MODEL = { thinkingStyle: "budget", canDisableThinking: true } as unknown as ModelCapabilities;

const asked: Record<"chat" | "messages" | "gemini", { body: Record<string, unknown>; budget: number | null; level: string }> = {
  chat: { body: { model: "m", messages: [{ role: "user", content: "hi" }], reasoning_effort: "high" }, budget: null, level: "high" },
  messages: { body: { model: "m", max_tokens: 30_000, thinking: { type: "enabled", budget_tokens: 5000 }, messages: [{ role: "user", content: "hi" }] }, budget: 5000, level: "medium" },
  gemini: { body: { contents: [{ role: "user", parts: [{ text: "hi" }] }], generationConfig: { thinkingConfig: { thinkingBudget: 5000 } } }, budget: 5000, level: "medium" },
};

/** What each upstream shape must get, for a client's budget (or null: a level) and its level. */
const EXPECT: Record<"chat" | "messages" | "gemini" | "converse", (body: Record<string, unknown>, budget: number | null, level: string) => void> = {
  chat: (body, _budget, level) => expect(body.reasoning_effort).toBe(level),
  messages: (body, _budget, level) => {
    expect(body.thinking).toEqual({ type: "adaptive" });
    expect(body.output_config).toMatchObject({ effort: level });
  },
  gemini: (body, budget) => {
    const config = (body.generationConfig as { thinkingConfig: Record<string, unknown> }).thinkingConfig;
    if (budget !== null) expect(config.thinkingBudget).toBe(budget);
    else expect(config.thinkingBudget).toBeGreaterThan(5000);
  },
  converse: (body, budget) => {
    const thinking = (body.additionalModelRequestFields as { thinking?: { budget_tokens: number } } | undefined)?.thinking;
    if (budget !== null) expect(thinking?.budget_tokens).toBe(budget);
    else expect(thinking?.budget_tokens).toBeGreaterThan(5000);
  },
};

const CASES = (Object.keys(asked) as Array<keyof typeof asked>).flatMap((client) =>
  (Object.keys(EXPECT) as Array<keyof typeof EXPECT>).filter((upstream) => upstream !== client).map((upstream) => [client, upstream] as const),
);

describe("reasoning crosses every pair of shapes", () => {
  it.each(CASES)("from a %s client to a %s upstream", (client, upstream) => {
    const { body, budget, level } = asked[client];
    const model = upstream === "converse" ? "anthropic.claude-sonnet-4-5-20250929-v1:0" : "m";
    const request = translationBetween(client, upstream).request({ ...parsedClient(body, 1000), model }, new DroppedParams(false), BUDGET_MODEL);
    EXPECT[upstream](request.body, budget, level);
  });
});
