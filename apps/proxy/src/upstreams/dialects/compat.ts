import type { CompatProfile, EndpointName } from "@gateway/contracts";
import type { UpstreamRecord } from "@gateway/redis-store";
import type { ParsedRequest } from "../../core/wire-format.ts";
import { withoutFields } from "../../core/drops.ts";
import { callBody, type DialectTransport } from "./transport.ts";

/** OpenAI-only request fields no compatible vendor here implements (stored completions, predicted outputs, audio, hosted search, tiers). */
const OPENAI_ONLY = ["store", "metadata", "service_tier", "prediction", "modalities", "audio", "web_search_options"];
/** Anthropic-only request fields (server-side containers and MCP, context editing, priority tier). */
const ANTHROPIC_ONLY = ["service_tier", "container", "mcp_servers", "context_management"];

/**
 * What each OpenAI- or Anthropic-compatible vendor does not take (contract section 17), per
 * endpoint the upstream reads: removed before the call and listed in `x-gateway-dropped-params`,
 * like a model's `drop_params`. Where it reports usage, for the reader: every one of these sends it
 * where OpenAI does when `stream_options.include_usage` is asked (Groq also in `x_groq.usage`, xAI
 * on the second-to-last chunk, Mistral and Ollama on the last one), and Anthropic-compatible ones in
 * `message_delta`. A field a profile misses is still dropped when the vendor's 400 names it
 * (`refusedField`).
 *
 * Sources: api-docs.deepseek.com (chat completion, Anthropic API), console.groq.com/docs/openai
 * ("unsupported features": logprobs, logit_bias, top_logprobs, n other than 1), docs.mistral.ai
 * (422 extra_forbidden on unknown fields; no stream_options, usage always on the last chunk),
 * docs.x.ai, openrouter.ai/docs, docs.vllm.ai (OpenAI-compatible server), github.com/ollama/ollama
 * docs/openai.md; wire notes section 5.
 */
export const COMPAT_DROPS: Readonly<Record<CompatProfile, Partial<Record<EndpointName, readonly string[]>>>> = {
  deepseek: { "chat.completions": [...OPENAI_ONLY, "reasoning_effort", "parallel_tool_calls", "logit_bias", "n"], messages: ANTHROPIC_ONLY },
  groq: { "chat.completions": [...OPENAI_ONLY.filter((field) => field !== "service_tier"), "logprobs", "top_logprobs", "logit_bias"], responses: ["store", "metadata", "background", "prompt_cache_key"] },
  mistral: { "chat.completions": [...OPENAI_ONLY, "stream_options", "logit_bias", "logprobs", "top_logprobs", "user", "reasoning_effort"] },
  xai: { "chat.completions": OPENAI_ONLY, messages: ANTHROPIC_ONLY },
  openrouter: { "chat.completions": ["store", "service_tier", "prediction", "modalities", "audio"], messages: ANTHROPIC_ONLY },
  vllm: { "chat.completions": OPENAI_ONLY, responses: ["store", "metadata", "background", "service_tier"] },
  ollama: { "chat.completions": [...OPENAI_ONLY, "logit_bias", "user", "n", "parallel_tool_calls", "logprobs", "top_logprobs"], messages: ANTHROPIC_ONLY },
};

/** Nothing dropped: shared, so the common request (no compat upstream) allocates no list per target. */
const NOTHING: readonly string[] = Object.freeze([]);

/** The request a compat upstream gets: its profile's fields removed (the same request when none is present) and their names. */
export function compatDrops(upstream: UpstreamRecord, endpoint: EndpointName, request: ParsedRequest): { request: ParsedRequest; dropped: readonly string[] } {
  const dialect = upstream.dialect;
  if (dialect?.kind !== "compat") return { request, dropped: NOTHING };
  const fields = COMPAT_DROPS[dialect.profile][endpoint];
  if (fields === undefined) return { request, dropped: NOTHING };
  const { body, removed } = withoutFields(request.body, fields);
  return removed.length === 0 ? { request, dropped: removed } : { request: { ...request, body }, dropped: removed };
}

/**
 * The field a vendor's 400 says it does not take, as the vendors word it: Groq's "property 'x' is
 * unsupported", OpenAI-style "Unrecognized request argument supplied: x", pydantic's
 * "extra_forbidden"/"Extra inputs are not permitted" with `loc: ["body", "x"]` (Mistral, vLLM),
 * serde's "unknown field `x`". Null when the error names none.
 */
export function namedUnknownField(text: string): string | null {
  const patterns = [
    /property '([A-Za-z_][A-Za-z0-9_]*)' is unsupported/,
    /Unrecognized request arguments? supplied: ([A-Za-z_][A-Za-z0-9_]*)/,
    /unknown field `([A-Za-z_][A-Za-z0-9_]*)`/,
    /"loc":\s*\[\s*"body",\s*"([A-Za-z_][A-Za-z0-9_]*)"\s*\][^}]*"(?:type|msg)":\s*"(?:extra_forbidden|Extra inputs are not permitted)"/,
    /"(?:type|msg)":\s*"(?:extra_forbidden|Extra inputs are not permitted)"[^}]*"loc":\s*\[\s*"body",\s*"([A-Za-z_][A-Za-z0-9_]*)"\s*\]/,
    /([A-Za-z_][A-Za-z0-9_]*): Extra inputs are not permitted/,
  ];
  for (const pattern of patterns) {
    const match = pattern.exec(text);
    if (match) return match[1]!;
  }
  return null;
}

/**
 * Fields the gateway itself adds to every call (usage asked for in a stream) that a vendor refuses:
 * taken out of the final body, silently (the client did not send them; when it did, the profile's
 * drops listed them). Mistral has no `stream_options` and always reports usage on the last chunk.
 */
const GATEWAY_ADDED: Partial<Record<CompatProfile, readonly string[]>> = { mistral: ["stream_options"] };

/**
 * A compat upstream's calls go as the shape's own but for the fields the gateway added that the
 * vendor refuses; a 400 that names a top-level field the body holds is answered by sending the
 * request again without it (listed like the profile's drops).
 */
export function compatTransport(profile: CompatProfile): DialectTransport {
  const added = GATEWAY_ADDED[profile] ?? [];
  return {
    prepare(call) {
      if (added.length === 0) return { path: call.path, headers: call.headers, body: call.body };
      const { body, removed } = withoutFields(callBody(call), added);
      return { path: call.path, headers: call.headers, body: removed.length === 0 ? call.body : JSON.stringify(body) };
    },
    refusedField,
  };
}

function refusedField(status: number, body: Buffer, sent: Record<string, unknown>): string | null {
  {
    if (status !== 400 && status !== 422) return null;
    const field = namedUnknownField(body.toString("utf8"));
    return field !== null && field !== "model" && field !== "messages" && sent[field] !== undefined ? field : null;
  }
}
