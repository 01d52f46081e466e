import type { RequestAccepts, Verdict } from "../../../core/neutral-request.ts";

const drop = (why: string): Verdict => ({ verdict: "drop", why });
const refuse = (why: string): Verdict => ({ verdict: "refuse", why });

/** How a refusal of an unknown field names the target. */
export const GEMINI_API = "a Gemini-shape upstream (generateContent)";

const CACHE = "Gemini caches prompts by itself (implicit caching) or through cachedContents";

/**
 * What a Gemini upstream takes from a client of another shape (shared/design/neutral-core.md
 * section 6): the rest, by the one drop-or-refuse rule (`core/drop-or-refuse.ts`), with the
 * sentence the client reads. Gemini takes several candidates, log probabilities, seed, penalties,
 * top-k and temperatures up to 2; it has no bookkeeping fields, no service tiers and no cache
 * breakpoints, and verifies only its own thought signatures.
 */
export const accepts: RequestAccepts = {
  upstream: GEMINI_API,
  name: "Gemini",
  // Google Search grounding is Gemini's own; its thoughts, calls and answers come back signed (thoughtSignature).
  webSearch: true,
  encryptedReasoning: true,
  origin: "gemini",
  refuses: {
    "audio-output": refuse("audio output needs Gemini's live or TTS models, not generateContent"),
    moderation: refuse("moderation results need OpenAI's own API; a Gemini-shape model returns none"),
    "legacy-functions": refuse("legacy function calling has no Gemini equivalent; use tools"),
    "logit-bias": drop("Gemini-shape models have no token bias"),
    prediction: drop("predicted outputs only speed up OpenAI models"),
    verbosity: drop("Gemini-shape models have no verbosity setting"),
    store: drop("answers of a Gemini-shape model are not stored"),
    metadata: drop("Gemini-shape models keep no request metadata"),
    "service-tier": drop("Gemini-shape models take no service tier here"),
    "second-user-id": drop("Gemini-shape models take no end-user id"),
    "long-user-id": drop("Gemini-shape models take no end-user id"),
    "prompt-cache-hint": drop(CACHE),
    "prompt-cache-options": drop(CACHE),
    "cache-control": drop(CACHE),
    "context-management": drop("Gemini-shape models manage no context for the client"),
    "inference-geo": drop("Gemini-shape models take no inference region"),
    speed: drop("Gemini-shape models have no speed setting"),
    "output-config": drop("has no Gemini equivalent"),
    "participant-name": drop("participant names have no Gemini equivalent"),
    "image-detail": drop("Gemini-shape models size images by mediaResolution, not per image"),
    "text-citations": drop("Gemini takes no citations in the conversation"),
    "foreign-reasoning": drop("reasoning signed by another provider cannot be verified by a Gemini-shape model"),
    "unsigned-reasoning": drop("reasoning without a Gemini thought signature cannot be sent back to a Gemini-shape model"),
    "earlier-web-search": drop("an earlier web search's results cannot be sent back to a Gemini-shape model; the answer that used them stays"),
    "custom-tool-grammar": drop("Gemini function declarations take no grammar; it is in the tool's description"),
    "reasoning-summary": drop("Gemini shows its thoughts whole (includeThoughts), not summarised"),
    "thinking-type": drop("has no Gemini equivalent"),
    "eager-input-streaming": drop("Gemini sends function calls whole"),
    "input-examples": drop("Gemini function declarations take no examples"),
    "defer-loading": drop("Gemini-shape models load every tool up front"),
    "allowed-callers": drop("has no Gemini equivalent"),
    "search-context-size": drop("Google Search grounding has no context size setting"),
    "search-cached-only": drop("Google Search grounding has no cached-only mode"),
    "search-max-uses": drop("Google Search grounding takes no maximum"),
    "forced-web-search": refuse("Gemini cannot be made to search: Google Search grounding is the model's choice"),
    "forced-only-web-search": refuse("Gemini cannot be made to search: Google Search grounding is the model's choice"),
  },
};
