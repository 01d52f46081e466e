import { describe, expect, it } from "vitest";
import type { Usage } from "@gateway/contracts";
import { DroppedParams } from "../core/drops.ts";
import { anthropicThinkingFromEffort, openaiEffortFromThinking } from "../core/reasoning.ts";
import { anthropicStopReasonFor, finishFromAnthropic } from "./anthropic-messages/finish.ts";
import { anthropicUsage, anthropicUsageBody } from "./anthropic-messages/usage.ts";
import { chatFinishReasonFor, finishFromChat } from "./openai-chat/finish.ts";
import { chatUsageBody } from "./openai-chat/usage.ts";
import { responsesOutcome } from "./openai-responses/finish.ts";
import { responsesUsageBody } from "./openai-responses/usage.ts";

/** A chat finish_reason as a Messages writer states it (no finish read: `end_turn`, as writer/response.ts does). */
const anthropicStopReason = (finish: unknown) => {
  const neutral = finishFromChat(finish);
  return neutral ? anthropicStopReasonFor(neutral) : "end_turn";
};

describe("stop and finish reasons", () => {
  it.each([
    ["end_turn", "stop", { status: "completed" }],
    ["stop_sequence", "stop", { status: "completed" }],
    ["pause_turn", "stop", { status: "completed" }],
    ["tool_use", "tool_calls", { status: "completed" }],
    ["max_tokens", "length", { status: "incomplete", reason: "max_output_tokens" }],
    ["model_context_window_exceeded", "length", { status: "incomplete", reason: "max_output_tokens" }],
    ["refusal", "content_filter", { status: "incomplete", reason: "content_filter" }],
    ["something_new", "stop", { status: "completed" }],
  ])("Anthropic %s -> chat %s, Responses %o", (stop, finish, outcome) => {
    expect(chatFinishReasonFor(finishFromAnthropic(stop))).toBe(finish);
    expect(responsesOutcome(finishFromAnthropic(stop))).toEqual(outcome);
  });

  it.each([
    ["stop", "end_turn", { status: "completed" }],
    ["length", "max_tokens", { status: "incomplete", reason: "max_output_tokens" }],
    ["tool_calls", "tool_use", { status: "completed" }],
    ["function_call", "tool_use", { status: "completed" }],
    ["content_filter", "refusal", { status: "incomplete", reason: "content_filter" }],
    [null, "end_turn", { status: "completed" }],
  ])("chat %s -> Anthropic %s, Responses %o", (finish, stop, outcome) => {
    expect(anthropicStopReason(finish)).toBe(stop);
    expect(responsesOutcome(finishFromChat(finish))).toEqual(outcome);
  });
});

describe("usage in each shape's words", () => {
  const usage: Usage = { inputTokens: 2034, outputTokens: 187, cachedInputTokens: 1800, cacheWriteTokens: 200, cacheWrite1hTokens: 0, reasoningTokens: 140, images: 0, webSearchRequests: 0 };

  it("totals are kept: OpenAI includes cached tokens in prompt tokens, Anthropic keeps both cache fields apart", () => {
    expect(chatUsageBody(usage)).toEqual({ prompt_tokens: 2034, completion_tokens: 187, total_tokens: 2221, prompt_tokens_details: { cached_tokens: 1800 }, completion_tokens_details: { reasoning_tokens: 140 } });
    expect(anthropicUsageBody(usage)).toEqual({ input_tokens: 34, cache_creation_input_tokens: 200, cache_read_input_tokens: 1800, cache_creation: { ephemeral_5m_input_tokens: 200, ephemeral_1h_input_tokens: 0 }, output_tokens: 187, output_tokens_details: { thinking_tokens: 140 } });
    expect(anthropicUsageBody({ ...usage, cacheWrite1hTokens: 50, webSearchRequests: 3 })).toMatchObject({ cache_creation: { ephemeral_5m_input_tokens: 150, ephemeral_1h_input_tokens: 50 }, server_tool_use: { web_search_requests: 3 } });
    expect(responsesUsageBody(usage)).toEqual({ input_tokens: 2034, input_tokens_details: { cached_tokens: 1800, cache_write_tokens: 200 }, output_tokens: 187, output_tokens_details: { reasoning_tokens: 140 }, total_tokens: 2221 });
  });

  it("Anthropic usage is read back to the same numbers, cumulatively over a stream", () => {
    const start = anthropicUsage({ input_tokens: 34, cache_creation_input_tokens: 200, cache_read_input_tokens: 1800, output_tokens: 1 });
    expect(anthropicUsage({ output_tokens: 187, output_tokens_details: { thinking_tokens: 140 } }, start)).toEqual(usage);
  });
});

describe("reasoning effort", () => {
  it.each([
    ["none", { thinking: { type: "disabled" } }],
    ["minimal", { thinking: { type: "adaptive" }, effort: "low" }],
    ["medium", { thinking: { type: "adaptive" }, effort: "medium" }],
    ["max", { thinking: { type: "adaptive" }, effort: "max" }],
    [null, {}],
  ])("OpenAI %s -> %o", (effort, expected) => {
    expect(anthropicThinkingFromEffort(effort, "reasoning_effort")).toEqual(expected);
  });

  it.each([
    [{ type: "enabled", budget_tokens: 1024 }, undefined, "low"],
    [{ type: "enabled", budget_tokens: 10_000 }, undefined, "medium"],
    [{ type: "enabled", budget_tokens: 32_000 }, undefined, "high"],
    [{ type: "adaptive" }, "xhigh", "xhigh"],
    [{ type: "adaptive" }, undefined, null],
    [{ type: "disabled" }, undefined, null],
    [undefined, undefined, null],
  ])("Anthropic %o with effort %s -> %s", (thinking, effort, expected) => {
    const dropped = new DroppedParams(true);
    expect(openaiEffortFromThinking(thinking, effort, dropped)).toBe(expected);
  });

  it("an unknown effort is a 400 naming the field", () => {
    expect(() => anthropicThinkingFromEffort("extreme", "reasoning.effort")).toThrow(expect.objectContaining({ param: "reasoning.effort" }));
  });
});
