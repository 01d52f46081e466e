import { OPENAI_CHAT } from "../../../core/fields.ts";
import { dropped as drop, refused as refuse } from "../../../core/drop-or-refuse.ts";
import type { RequestAccepts } from "../../../core/neutral-request.ts";

/**
 * What a Chat Completions upstream takes from a client of another shape: the rest, by the one
 * drop-or-refuse rule (`core/drop-or-refuse.ts`), with the sentence the client reads (the README's
 * drop/refuse table, "-> chat" rows).
 */
export const accepts: RequestAccepts = {
  upstream: OPENAI_CHAT,
  name: "OpenAI Chat Completions",
  // OpenAI refuses a longer `user` (Claude Code's user_id is ~170 characters).
  maxUserLength: 64,
  webSearch: false,
  // Chat Completions returns no reasoning at all, encrypted or not.
  encryptedReasoning: false,
  refuses: {
    "top-k": drop("OpenAI-shape models have no top_k sampling"),
    // A prompt-cache breakpoint: OpenAI caches prompts by itself, the answer is the same.
    "cache-control": drop("OpenAI-shape models cache prompts by themselves"),
    "context-management": drop("OpenAI-shape models manage no context for the client"),
    "inference-geo": drop("OpenAI-shape models take no inference region"),
    speed: drop("OpenAI-shape models have no speed setting"),
    "long-user-id": drop("OpenAI takes a user of at most 64 characters"),
    metadata: drop("only metadata.user_id has an OpenAI equivalent (user)"),
    // Anthropic's tiers other than auto and standard_only have no OpenAI word.
    "foreign-service-tier": drop("OpenAI-shape models take only the auto and standard_only tiers"),
    "output-config": drop("has no OpenAI Chat Completions equivalent"),
    "text-citations": drop("Chat Completions text carries no citations"),
    "foreign-reasoning": drop("earlier thinking blocks cannot be sent to an OpenAI-shape model (their signatures are Anthropic's)"),
    // Earlier reasoning only informs the model; Chat Completions has no way to send it back.
    "earlier-reasoning": drop("reasoning items cannot be sent through Chat Completions"),
    // Summaries are best effort on the Responses API too (a model may give none).
    "reasoning-summary": drop("Chat Completions returns no reasoning summaries"),
    "earlier-web-search": drop("an earlier web search cannot be sent to an OpenAI-shape model; the answer that used it stays"),
    // Chat Completions has no web search tool, so the model answers without it.
    "web-search-tool": drop("this model's upstream (Chat Completions) has no web search tool; the model answers without searching"),
    "forced-web-search": refuse("it forces a web search, which this model's upstream (Chat Completions) cannot run"),
    "forced-only-web-search": refuse("it forces a tool call, and the only tool is web search, which this model's upstream (Chat Completions) cannot run"),
    "eager-input-streaming": drop("OpenAI-shape models stream tool arguments as they come"),
    "input-examples": drop("OpenAI-shape models take no tool input examples"),
    "defer-loading": drop("OpenAI-shape models load every tool up front"),
    "allowed-callers": drop("OpenAI-shape models call tools only directly"),
  },
};
