import { describe, expect, it } from "vitest";
import type { ModelCapabilities } from "@gateway/redis-store";
import { DroppedParams } from "../../../core/drops.ts";
import { emptyRequest, type NeutralRequest } from "../../../core/neutral-request.ts";
import { writeRequest } from "./request.ts";

/**
 * The Gemini writer's thinking field, per model capability: `thinkingLevel` to a `level` model,
 * `thinkingBudget` to a `budget` one, never both (Google refuses both at once, and a level on 2.5);
 * off where the model can turn thinking off, else the least it takes.
 */
const BASE: ModelCapabilities = { maxOutputTokens: 65_536, contextWindow: 1_048_576, reasoning: true, sampling: true, midConversationSystem: false, vision: true, tools: true };
const GEMINI_3_PRO = { ...BASE, thinkingStyle: "level", canDisableThinking: false } as const;
const GEMINI_3_FLASH = { ...BASE, thinkingStyle: "level", canDisableThinking: true } as const;
const GEMINI_25_PRO = { ...BASE, thinkingStyle: "budget", canDisableThinking: false } as const;
const GEMINI_25_FLASH = { ...BASE, thinkingStyle: "budget", canDisableThinking: true } as const;

function thinking(reasoning: NeutralRequest["reasoning"], capabilities?: ModelCapabilities): unknown {
  const request = emptyRequest("m", false);
  request.turns.push({ role: "user", parts: [{ type: "text", text: "hi" }] } as NeutralRequest["turns"][number]);
  request.reasoning = reasoning;
  const body = writeRequest(request, { drops: new DroppedParams(false), outputBound: undefined, capabilities });
  return (body.generationConfig as { thinkingConfig?: unknown } | undefined)?.thinkingConfig;
}

const effort = (value: NonNullable<NeutralRequest["reasoning"]>["effort"]) => ({ effort: value, path: "reasoning_effort" });
const budget = (tokens: number) => ({ budgetTokens: tokens, path: "thinking.budget_tokens" });

describe("Gemini thinkingConfig by thinking_style / can_disable_thinking", () => {
  it("level: effort as thinkingLevel, a budget by the nearest-level rule, no thinkingBudget", () => {
    expect(thinking(effort("low"), GEMINI_3_PRO)).toEqual({ thinkingLevel: "LOW", includeThoughts: true });
    expect(thinking(effort("medium"), GEMINI_3_PRO)).toEqual({ thinkingLevel: "MEDIUM", includeThoughts: true });
    expect(thinking(effort("high"), GEMINI_3_PRO)).toEqual({ thinkingLevel: "HIGH", includeThoughts: true });
    expect(thinking(effort("xhigh"), GEMINI_3_PRO)).toEqual({ thinkingLevel: "HIGH", includeThoughts: true });
    // effortFromBudget's scale: below 4k low, below 16k medium, else high.
    expect(thinking(budget(2048), GEMINI_3_PRO)).toEqual({ thinkingLevel: "LOW", includeThoughts: true });
    expect(thinking(budget(8000), GEMINI_3_PRO)).toEqual({ thinkingLevel: "MEDIUM", includeThoughts: true });
    expect(thinking({ ...budget(20_000), visible: false }, GEMINI_3_PRO)).toEqual({ thinkingLevel: "HIGH", includeThoughts: false });
  });

  it("level: none and minimal are MINIMAL where thinking can be off, else LOW (Gemini 3 Pro takes no MINIMAL)", () => {
    expect(thinking(effort("none"), GEMINI_3_FLASH)).toEqual({ thinkingLevel: "MINIMAL" });
    expect(thinking(effort("minimal"), GEMINI_3_FLASH)).toEqual({ thinkingLevel: "MINIMAL", includeThoughts: true });
    expect(thinking(effort("none"), GEMINI_3_PRO)).toEqual({ thinkingLevel: "LOW" });
    expect(thinking(effort("minimal"), GEMINI_3_PRO)).toEqual({ thinkingLevel: "LOW", includeThoughts: true });
    expect(thinking(budget(0), GEMINI_3_PRO)).toEqual({ thinkingLevel: "LOW" });
  });

  it("budget: effort as thinkingBudget, a budget as is, no thinkingLevel; 0 only where thinking can be off", () => {
    expect(thinking(effort("low"), GEMINI_25_FLASH)).toEqual({ thinkingBudget: 2048, includeThoughts: true });
    expect(thinking(budget(5000), GEMINI_25_FLASH)).toEqual({ thinkingBudget: 5000, includeThoughts: true });
    expect(thinking(effort("none"), GEMINI_25_FLASH)).toEqual({ thinkingBudget: 0 });
    expect(thinking(effort("none"), GEMINI_25_PRO)).toEqual({ thinkingBudget: 128 });
    expect(thinking(budget(0), GEMINI_25_PRO)).toEqual({ thinkingBudget: 128 });
    expect(thinking(effort("high"), GEMINI_25_PRO)).toEqual({ thinkingBudget: 24_576, includeThoughts: true });
  });

  it("no capabilities (a snapshot from before they existed): a budget, as before", () => {
    expect(thinking(effort("medium"))).toEqual({ thinkingBudget: 8192, includeThoughts: true });
    expect(thinking(effort("none"))).toEqual({ thinkingBudget: 0 });
    expect(thinking(effort("high"), BASE)).toEqual({ thinkingBudget: 24_576, includeThoughts: true });
    expect(thinking(undefined, GEMINI_3_PRO)).toBeUndefined();
  });
});
