import { isSet, list, unsupported } from "../shared/fields.ts";
import type { DroppedParams } from "../shared/dropped-params.ts";

/**
 * Responses fields tied to OpenAI's Responses service itself. What the answer depends on (stored
 * state, prompt templates, background runs, log probabilities) is a 400 naming it; what only tunes
 * the answer or its bookkeeping (storing it, context compaction, truncation on overflow, limits on
 * built-in tool calls) is dropped and listed. `honoursEncryptedReasoning`: the upstream returns
 * signed reasoning (Anthropic thinking), so `include: ["reasoning.encrypted_content"]` is met.
 */
export function statefulFields(request: Record<string, unknown>, dropped: DroppedParams, honoursEncryptedReasoning: boolean): void {
  for (const field of ["previous_response_id", "conversation", "prompt"] as const) {
    if (isSet(request[field])) throw unsupported(field, "needs the Responses API itself; this model's upstream is served through another API");
  }
  if (request.background === true) throw unsupported("background", "background responses need the Responses API itself");
  if (isSet(request.top_logprobs) && request.top_logprobs !== 0) throw unsupported("top_logprobs", "log probabilities cannot be served through another API");
  if (request.store === true) dropped.drop("store", "responses served through another API are not stored");
  dropped.dropIfSet(request, "context_management", "", "context compaction needs the Responses API itself");
  dropped.dropIfSet(request, "max_tool_calls", "", "it limits built-in tools, which another API does not run");
  if (isSet(request.truncation) && request.truncation !== "disabled") dropped.drop("truncation", "only disabled truncation can be served through another API");
  for (const [index, value] of list(request.include).entries()) {
    if (value === "message.output_text.logprobs") throw unsupported(`include[${index}]`, "log probabilities cannot be served through another API");
    if (value === "reasoning.encrypted_content" && honoursEncryptedReasoning) continue;
    dropped.drop(`include[${index}]`, `${String(value)} cannot be served through another API`);
  }
}
