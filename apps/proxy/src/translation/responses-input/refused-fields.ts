import { asRecord } from "../../upstreams/request-fields.ts";
import { isSet, list, unsupported } from "../../core/fields.ts";
import type { DroppedParams } from "../../core/drops.ts";

/** What the upstream does with parts of a Responses request beyond the conversation itself. */
export interface UpstreamMeets {
  /** It returns signed reasoning (Anthropic thinking), so `include: ["reasoning.encrypted_content"]` is met. */
  encryptedReasoning: boolean;
  /** It runs the request's web search tool itself (Anthropic's server tool): `max_tool_calls` and the sources include are met. */
  webSearch: boolean;
}

/** Top-level Responses fields read here; each direction adds them to the fields it handles. */
export const STATEFUL_FIELDS = [
  "previous_response_id", "conversation", "prompt", "context_management", "max_tool_calls", "store", "background", "truncation", "top_logprobs", "include",
  "access_programs", "image", "moderation", "prompt_cache_options",
] as const;

/**
 * Responses fields tied to OpenAI's Responses service itself. What the answer depends on (stored
 * state, prompt templates, background runs, log probabilities, moderation results, a cache prewarm
 * that answers nothing) is a 400 naming it; what only tunes the answer or its bookkeeping (storing
 * it, context compaction, truncation on overflow, limits on built-in tool calls, image compression,
 * cache options, OpenAI's access programs) is dropped and listed.
 */
export function statefulFields(request: Record<string, unknown>, dropped: DroppedParams, meets: UpstreamMeets): void {
  for (const field of ["previous_response_id", "conversation", "prompt"] as const) {
    if (isSet(request[field])) throw unsupported(field, "needs the Responses API itself; this model's upstream is served through another API");
  }
  if (request.background === true) throw unsupported("background", "background responses need the Responses API itself");
  if (isSet(request.top_logprobs) && request.top_logprobs !== 0) throw unsupported("top_logprobs", "log probabilities cannot be served through another API");
  if (isSet(request.moderation)) throw unsupported("moderation", "moderation results need the Responses API itself");
  // A stateless request (store: false) changes nothing; store: true asks for what is not kept here.
  if (request.store === true) dropped.drop("store", "responses served through another API are not stored");
  dropped.dropIfSet(request, "context_management", "", "context compaction needs the Responses API itself");
  if (!meets.webSearch) dropped.dropIfSet(request, "max_tool_calls", "", "it limits built-in tools, which another API does not run");
  if (isSet(request.truncation) && request.truncation !== "disabled") dropped.drop("truncation", "only disabled truncation can be served through another API");
  const cacheOptions = asRecord(request.prompt_cache_options);
  if (cacheOptions?.prewarm === true) throw unsupported("prompt_cache_options.prewarm", "a prewarm answers nothing, which another API cannot do");
  if (Object.keys(cacheOptions ?? {}).length > 0) dropped.drop("prompt_cache_options", "another API caches prompts its own way");
  const image = asRecord(request.image);
  if (isSet(image?.context_compression) && image?.context_compression !== "auto") dropped.drop("image.context_compression", "another API sizes images its own way");
  if (Object.keys(asRecord(request.access_programs) ?? {}).length > 0) dropped.drop("access_programs", "access programs are OpenAI's own");
  for (const [index, value] of list(request.include).entries()) {
    if (value === "message.output_text.logprobs") throw unsupported(`include[${index}]`, "log probabilities cannot be served through another API");
    if (value === "reasoning.encrypted_content" && meets.encryptedReasoning) continue;
    if (value === "web_search_call.action.sources" && meets.webSearch) continue;
    dropped.drop(`include[${index}]`, `${String(value)} cannot be served through another API`);
  }
}

/**
 * `user` and `safety_identifier` both identify the end user; a target with one such field
 * (Anthropic `metadata.user_id`) carries `user`, and a different `safety_identifier` is dropped.
 */
export function oneUserId(request: Record<string, unknown>, dropped: DroppedParams): string | undefined {
  const user = typeof request.user === "string" ? request.user : undefined;
  const safety = typeof request.safety_identifier === "string" ? request.safety_identifier : undefined;
  if (user !== undefined && safety !== undefined && safety !== user) dropped.drop("safety_identifier", "the other side carries one end-user id, and user is it");
  return user ?? safety;
}
