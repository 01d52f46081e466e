import type { RequestAccepts, Verdict } from "../../../core/neutral-request.ts";

const drop = (why: string): Verdict => ({ verdict: "drop", why });
const refuse = (why: string): Verdict => ({ verdict: "refuse", why });

/** How a refusal of an unknown field names the target. */
export const CONVERSE_API = "a Bedrock Converse upstream";

const NO_SAMPLING = "Bedrock Converse takes temperature, topP and stop sequences only";

/**
 * What a Bedrock Converse upstream takes from a client of another shape (any model on Bedrock:
 * Nova, Llama, Mistral, Claude...): Converse's common fields only (`inferenceConfig`: maxTokens,
 * temperature, topP, stopSequences), one answer, no log probabilities, no bookkeeping or service
 * fields, no hosted tools, no response format; the rest by the one drop-or-refuse rule
 * (`core/drop-or-refuse.ts`) with the sentence the client reads.
 */
export const accepts: RequestAccepts = {
  upstream: CONVERSE_API,
  name: "Bedrock Converse",
  webSearch: false,
  encryptedReasoning: false,
  refuses: {
    choices: refuse("Bedrock Converse returns exactly one answer"),
    logprobs: refuse("Bedrock Converse does not return log probabilities"),
    "audio-output": refuse("audio output has no Bedrock Converse equivalent"),
    moderation: refuse("moderation results need OpenAI's own API; a Bedrock Converse model returns none"),
    "legacy-functions": refuse("legacy function calling has no Bedrock Converse equivalent; use tools"),
    "json-object-format": refuse("json_object mode has no Bedrock Converse equivalent"),
    "forced-web-search": refuse("Bedrock Converse has no hosted web search"),
    "forced-only-web-search": refuse("Bedrock Converse has no hosted web search"),
    "web-search-tool": refuse("Bedrock Converse has no hosted web search"),
    seed: drop(NO_SAMPLING),
    "presence-penalty": drop(NO_SAMPLING),
    "frequency-penalty": drop(NO_SAMPLING),
    "top-k": drop(NO_SAMPLING),
    "temperature-above-1": drop("Bedrock Converse takes temperatures from 0 to 1"),
    "logit-bias": drop("Bedrock Converse has no token bias"),
    prediction: drop("predicted outputs only speed up OpenAI models"),
    verbosity: drop("Bedrock Converse has no verbosity setting"),
    store: drop("answers of a Bedrock Converse model are not stored"),
    metadata: drop("Bedrock Converse keeps no request metadata here"),
    "service-tier": drop("Bedrock Converse takes no service tier here"),
    "foreign-service-tier": drop("Bedrock Converse takes no service tier here"),
    "second-user-id": drop("Bedrock Converse takes no end-user id"),
    "long-user-id": drop("Bedrock Converse takes no end-user id"),
    "prompt-cache-hint": drop("Bedrock caches prompts at cache points, not by key"),
    "prompt-cache-options": drop("Bedrock caches prompts at cache points, not by key"),
    "cache-control": drop("cache breakpoints are not sent to a Bedrock Converse model"),
    "context-management": drop("Bedrock Converse manages no context for the client"),
    "inference-geo": drop("a Bedrock upstream's region is its own"),
    speed: drop("Bedrock Converse has no speed setting"),
    "output-config": drop("has no Bedrock Converse equivalent"),
    "participant-name": drop("participant names have no Bedrock Converse equivalent"),
    "image-detail": drop("Bedrock Converse takes no image detail"),
    "text-citations": drop("Bedrock Converse takes no citations in the conversation"),
    "foreign-reasoning": drop("reasoning signed by another provider cannot be sent back to a Bedrock Converse model"),
    "unsigned-reasoning": drop("earlier reasoning is not sent back to a Bedrock Converse model"),
    "earlier-reasoning": drop("earlier reasoning is not sent back to a Bedrock Converse model"),
    "earlier-web-search": drop("an earlier web search's results cannot be sent to a Bedrock Converse model; the answer that used them stays"),
    "custom-tool-grammar": drop("Bedrock Converse tools take no grammar; it is in the tool's description"),
    "reasoning-summary": drop("Bedrock Converse has no reasoning summaries"),
    "thinking-type": drop("has no Bedrock Converse equivalent"),
    "eager-input-streaming": drop("has no Bedrock Converse equivalent"),
    "input-examples": drop("Bedrock Converse tools take no examples"),
    "defer-loading": drop("Bedrock Converse loads every tool up front"),
    "allowed-callers": drop("has no Bedrock Converse equivalent"),
    "search-context-size": drop("Bedrock Converse has no hosted web search"),
    "search-cached-only": drop("Bedrock Converse has no hosted web search"),
    "search-max-uses": drop("Bedrock Converse has no hosted web search"),
  },
};
