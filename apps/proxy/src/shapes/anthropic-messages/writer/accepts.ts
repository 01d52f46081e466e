import { ANTHROPIC_MESSAGES } from "../../../core/fields.ts";
import { dropped as drop, refused as refuse } from "../../../core/drop-or-refuse.ts";
import type { RequestAccepts } from "../../../core/neutral-request.ts";

const NO_SAMPLING = "Anthropic-shape models have no such sampling setting";
const CACHE = "Anthropic-shape models cache prompts by cache_control breakpoints";

/**
 * What an Anthropic Messages upstream takes from a client of another shape: the rest, by the one
 * drop-or-refuse rule (`core/drop-or-refuse.ts`), with the sentence the client reads (the README's
 * drop/refuse table, "-> Anthropic" rows).
 */
export const accepts: RequestAccepts = {
  upstream: ANTHROPIC_MESSAGES,
  name: "Anthropic",
  // Anthropic runs its own web search server tool, and returns its thinking signed.
  webSearch: true,
  encryptedReasoning: true,
  origin: "anthropic",
  refuses: {
    choices: refuse("Anthropic-shape models return exactly one choice"),
    logprobs: refuse("Anthropic-shape models do not return log probabilities"),
    "audio-output": refuse("Anthropic-shape models answer in text only"),
    moderation: refuse("moderation results need OpenAI's own API; an Anthropic-shape model returns none"),
    "legacy-functions": refuse("legacy function calling has no Anthropic equivalent; use tools"),
    "json-object-format": refuse("json_object mode has no Anthropic equivalent; send a json_schema format"),
    "frequency-penalty": drop(NO_SAMPLING),
    "presence-penalty": drop(NO_SAMPLING),
    "logit-bias": drop("Anthropic-shape models have no token bias"),
    seed: drop("Anthropic-shape models have no seed"),
    prediction: drop("predicted outputs only speed up OpenAI models"),
    verbosity: drop("Anthropic-shape models have no verbosity setting"),
    // OpenAI's temperature runs 0..2, Anthropic's 0..1; a sampling hint only tunes the answer.
    "temperature-above-1": drop("Anthropic-shape models accept 0 to 1"),
    // store keeps the completion in OpenAI's dashboard; metadata is kept only with it.
    store: drop("completions served by an Anthropic-shape model are not stored"),
    metadata: drop("metadata is kept only with stored completions"),
    "service-tier": drop("Anthropic-shape models offer only the auto and default tiers"),
    "second-user-id": drop("Anthropic-shape models carry one end-user id, and user is it"),
    "prompt-cache-hint": drop(CACHE),
    "prompt-cache-options": drop(CACHE),
    "participant-name": drop("participant names have no Anthropic equivalent"),
    "image-detail": drop("Anthropic-shape models size images themselves"),
    "defer-loading": drop("Anthropic-shape models load every tool up front here"),
    "search-context-size": drop("Anthropic's web search has no context size setting"),
    "search-cached-only": drop("Anthropic's web search has no cached-only mode"),
    "search-max-uses": drop("Anthropic's web search takes a positive whole max_uses"),
    "unsigned-reasoning": drop("reasoning items without encrypted_content cannot be sent to an Anthropic-shape model"),
    // OpenAI's own encrypted reasoning (a Fernet token), a Gemini thoughtSignature: Anthropic would refuse either as a signature.
    "foreign-reasoning": drop("reasoning signed by another provider (OpenAI, Gemini) cannot be verified by an Anthropic-shape model"),
    "earlier-web-search": drop("an earlier web search's results cannot be sent back to an Anthropic-shape model; the answer that used them stays"),
  },
};
