import { asRecord } from "../../upstreams/request-fields.ts";
import { isSet, unsupported } from "../shared/fields.ts";

/**
 * Chat Completions fields Anthropic cannot express. Each is accepted at the value that changes
 * nothing (n = 1, logprobs false, penalties 0, ...) and named in a 400 at any other.
 */
export function refuseChatOnlyFields(chat: Record<string, unknown>): void {
  if (isSet(chat.n) && chat.n !== 1) throw unsupported("n", "Anthropic-shape models return exactly one choice");
  if (chat.logprobs === true) throw unsupported("logprobs", "Anthropic-shape models do not return log probabilities");
  if (isSet(chat.top_logprobs) && chat.top_logprobs !== 0) throw unsupported("top_logprobs", "Anthropic-shape models do not return log probabilities");
  for (const field of ["frequency_penalty", "presence_penalty"] as const) {
    if (isSet(chat[field]) && chat[field] !== 0) throw unsupported(field, "Anthropic-shape models have no sampling penalties");
  }
  if (isSet(chat.logit_bias) && Object.keys(asRecord(chat.logit_bias) ?? {}).length > 0) {
    throw unsupported("logit_bias", "Anthropic-shape models have no token bias");
  }
  if (isSet(chat.seed)) throw unsupported("seed", "Anthropic-shape models have no seed");
  // metadata is only kept with a stored completion; without store: true OpenAI ignores it too.
  if (chat.store === true) throw unsupported("store", "completions served by an Anthropic-shape model are not stored");
  if (isSet(chat.service_tier) && chat.service_tier !== "auto" && chat.service_tier !== "default") {
    throw unsupported("service_tier", "Anthropic-shape models offer only the auto and default tiers");
  }
  if (isSet(chat.modalities) && !(Array.isArray(chat.modalities) && chat.modalities.every((modality) => modality === "text"))) {
    throw unsupported("modalities", "Anthropic-shape models answer in text only");
  }
}
