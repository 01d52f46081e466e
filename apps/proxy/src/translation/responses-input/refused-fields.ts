import { isSet, list, unsupported } from "../shared/fields.ts";

/**
 * Responses fields that need OpenAI's Responses service itself (stored state, background runs,
 * prompt templates) and so cannot be served through another API. Each is accepted only at the
 * value that changes nothing.
 */
export function refuseStatefulFields(request: Record<string, unknown>): void {
  for (const field of ["previous_response_id", "conversation", "prompt", "context_management", "max_tool_calls"] as const) {
    if (isSet(request[field])) throw unsupported(field, "needs the Responses API itself; this model's upstream is served through another API");
  }
  if (request.store === true) throw unsupported("store", "responses served through another API are not stored; send store: false");
  if (request.background === true) throw unsupported("background", "background responses need the Responses API itself");
  if (isSet(request.truncation) && request.truncation !== "disabled") throw unsupported("truncation", "only disabled truncation can be served through another API");
  if (isSet(request.top_logprobs) && request.top_logprobs !== 0) throw unsupported("top_logprobs", "log probabilities cannot be served through another API");
  // encrypted reasoning is always returned when the upstream has any; other includes are not.
  for (const [index, value] of list(request.include).entries()) {
    if (value !== "reasoning.encrypted_content") throw unsupported(`include[${index}]`, `${String(value)} cannot be served through another API`);
  }
}
