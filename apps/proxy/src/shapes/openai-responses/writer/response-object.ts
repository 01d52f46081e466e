import type { Usage } from "@gateway/contracts";
import { nowSeconds } from "../../../core/ids.ts";
import type { ResponsesOutcome } from "../finish.ts";
import { responsesUsageBody } from "../usage.ts";

export interface ResponseFields {
  id: string;
  createdAt: number;
  model: unknown;
  /** null while the response is in progress. */
  outcome: ResponsesOutcome | null;
  output: Record<string, unknown>[];
  usage: Usage | null;
}

/**
 * A Responses `response` object. The request's own settings are echoed as the Responses API does;
 * metadata is kept here (it is the response's, never sent upstream). Nothing is stored, so store
 * is false and there is no previous_response_id.
 */
export function responseObject(request: Record<string, unknown>, fields: ResponseFields): Record<string, unknown> {
  const outcome = fields.outcome;
  return {
    id: fields.id,
    object: "response",
    created_at: fields.createdAt,
    status: outcome?.status ?? "in_progress",
    background: false,
    completed_at: outcome?.status === "completed" ? nowSeconds() : null,
    error: null,
    incomplete_details: outcome?.status === "incomplete" ? { reason: outcome.reason } : null,
    instructions: request.instructions ?? null,
    max_output_tokens: request.max_output_tokens ?? null,
    max_tool_calls: null,
    model: fields.model,
    output: fields.output,
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    previous_response_id: null,
    prompt_cache_key: request.prompt_cache_key ?? null,
    reasoning: request.reasoning ?? { effort: null, summary: null },
    safety_identifier: request.safety_identifier ?? null,
    service_tier: request.service_tier ?? "auto",
    store: false,
    temperature: request.temperature ?? null,
    text: request.text ?? { format: { type: "text" } },
    tool_choice: request.tool_choice ?? "auto",
    tools: request.tools ?? [],
    top_logprobs: request.top_logprobs ?? 0,
    top_p: request.top_p ?? null,
    truncation: request.truncation ?? "disabled",
    usage: fields.usage ? responsesUsageBody(fields.usage) : null,
    user: request.user ?? null,
    metadata: request.metadata ?? {},
  };
}
