import { asRecord } from "../../upstreams/request-fields.ts";
import { isSet, unsupported } from "../../core/fields.ts";
import type { DroppedParams } from "../../core/drops.ts";

const NO_SAMPLING = "Anthropic-shape models have no such sampling setting";

/**
 * Chat Completions fields Anthropic cannot express. Each is accepted at the value that changes
 * nothing (n = 1, logprobs false, penalties 0, ...). At any other value a field that only tunes
 * the answer is dropped (listed in `x-gateway-dropped-params`); one whose loss changes what the
 * client gets back (several choices, log probabilities, audio, a tool Anthropic cannot call) is a
 * 400 naming it.
 */
export function chatOnlyFields(chat: Record<string, unknown>, dropped: DroppedParams): void {
  if (isSet(chat.n) && chat.n !== 1) throw unsupported("n", "Anthropic-shape models return exactly one choice");
  if (chat.logprobs === true) throw unsupported("logprobs", "Anthropic-shape models do not return log probabilities");
  if (isSet(chat.top_logprobs) && chat.top_logprobs !== 0) throw unsupported("top_logprobs", "Anthropic-shape models do not return log probabilities");
  if (isSet(chat.audio)) throw unsupported("audio", "Anthropic-shape models answer in text only");
  if (isSet(chat.modalities) && !(Array.isArray(chat.modalities) && chat.modalities.every((modality) => modality === "text"))) {
    throw unsupported("modalities", "Anthropic-shape models answer in text only");
  }
  // Moderated completions come back with moderation results (or blocked): OpenAI's own service.
  if (isSet(chat.moderation)) throw unsupported("moderation", "moderation results need OpenAI's own API; an Anthropic-shape model returns none");
  for (const field of ["functions", "function_call"] as const) {
    if (isSet(chat[field])) throw unsupported(field, "legacy function calling has no Anthropic equivalent; use tools");
  }
  for (const field of ["frequency_penalty", "presence_penalty"] as const) {
    if (isSet(chat[field]) && chat[field] !== 0) dropped.drop(field, NO_SAMPLING);
  }
  if (Object.keys(asRecord(chat.logit_bias) ?? {}).length > 0) dropped.drop("logit_bias", "Anthropic-shape models have no token bias");
  dropped.dropIfSet(chat, "seed", "", "Anthropic-shape models have no seed");
  dropped.dropIfSet(chat, "prediction", "", "predicted outputs only speed up OpenAI models");
  dropped.dropIfSet(chat, "verbosity", "", "Anthropic-shape models have no verbosity setting");
  // store keeps the completion in OpenAI's dashboard; metadata is kept only with it.
  if (chat.store === true) dropped.drop("store", "completions served by an Anthropic-shape model are not stored");
  if (Object.keys(asRecord(chat.metadata) ?? {}).length > 0) dropped.drop("metadata", "metadata is kept only with stored completions");
  if (isSet(chat.service_tier) && chat.service_tier !== "auto" && chat.service_tier !== "default") {
    dropped.drop("service_tier", "Anthropic-shape models offer only the auto and default tiers");
  }
  // Anthropic carries one end-user id (metadata.user_id): user when both are set.
  if (typeof chat.user === "string" && typeof chat.safety_identifier === "string" && chat.user !== chat.safety_identifier) {
    dropped.drop("safety_identifier", "Anthropic-shape models carry one end-user id, and user is it");
  }
  // Prompt-cache routing hints steer OpenAI's automatic cache, never the answer.
  dropped.dropIfSet(chat, "prompt_cache_key", "", "Anthropic-shape models cache prompts by cache_control breakpoints");
  dropped.dropIfSet(chat, "prompt_cache_retention", "", "Anthropic-shape models cache prompts by cache_control breakpoints");
  // Implicit or explicit breakpoints and their lifetime: how OpenAI caches, never what it answers.
  if (Object.keys(asRecord(chat.prompt_cache_options) ?? {}).length > 0) dropped.drop("prompt_cache_options", "Anthropic-shape models cache prompts by cache_control breakpoints");
}
