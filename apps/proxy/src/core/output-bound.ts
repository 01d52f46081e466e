import { GatewayError } from "@gateway/contracts";
import type { EndpointName, ParsedRequest } from "./wire-format.ts";
import { invalidField } from "./request-fields.ts";
import { unsupported } from "./fields.ts";

/*
 * One output bound (contract section 14): the most output tokens a request may produce, computed
 * once per request in the route (`parsed.outputBound`) and read by the limiter's reservation
 * (limits/request-bound.ts, which reads nothing else), every translator (which sends exactly this
 * value, in one field) and the same-shape upstream call (`boundedBody`). So what is reserved is
 * what the upstream may produce. A client that sets no field gets the model's `max_output_tokens`
 * (the gateway file's, or its provider family's default there: `FAMILY_CAPABILITIES`); the
 * gateway has no output default of its own.
 */

/**
 * Each endpoint's output-limit fields, in the order its native API obeys them: the first one set
 * wins. Chat Completions obeys `max_completion_tokens` over the deprecated `max_tokens`
 * (https://platform.openai.com/docs/api-reference/chat/create). Endpoints without a field produce
 * no output tokens (embeddings, counts) or are bounded by their image count (`n`).
 */
const OUTPUT_FIELDS: Record<EndpointName, readonly string[]> = {
  "chat.completions": ["max_completion_tokens", "max_tokens"],
  messages: ["max_tokens"],
  responses: ["max_output_tokens"],
  "images.generations": [],
  embeddings: [],
  "messages.count_tokens": [],
  // Inside `generationConfig` (OUTPUT_CONTAINER).
  "gemini.generate_content": ["maxOutputTokens"],
  "gemini.count_tokens": [],
  "gemini.embed_content": [],
};

/** Where an endpoint's output fields are when not at the top of its body: Gemini's `generationConfig`. */
const OUTPUT_CONTAINER: Partial<Record<EndpointName, string>> = { "gemini.generate_content": "generationConfig" };

const NO_FIELDS: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;

/** The object holding `endpoint`'s output fields: the body, or its container (an empty one when absent). */
function outputHolder(body: Record<string, unknown>, endpoint: EndpointName): Record<string, unknown> {
  const container = OUTPUT_CONTAINER[endpoint];
  if (container === undefined) return body;
  const inner = body[container];
  return inner !== null && typeof inner === "object" && !Array.isArray(inner) ? (inner as Record<string, unknown>) : NO_FIELDS;
}

/** An output field's path in the client's body (`generationConfig.maxOutputTokens`). */
function fieldPath(endpoint: EndpointName, field: string): string {
  const container = OUTPUT_CONTAINER[endpoint];
  return container === undefined ? field : `${container}.${field}`;
}

/** The output-limit fields `endpoint` reads, the one its native API obeys first. */
export function outputFields(endpoint: EndpointName): readonly string[] {
  return OUTPUT_FIELDS[endpoint];
}

/**
 * What a value above the model's maximum gets. `refuse`: the client named the model itself in its
 * own shape, so it can know the limit: the 400 the native API would answer (`invalid_body`).
 * `lower`: it reached the model through an alias or across shapes (Claude Code's `max_tokens:
 * 32000` on a model mapped onto gpt-4o-mini): the bound is the maximum and the field is listed in
 * `x-gateway-dropped-params`. `strict`: it would be lowered, but `strict_params` refuses what it
 * would otherwise change: the drop-or-refuse rule's 400 (`unsupported_feature`).
 */
export type AboveMaximum = "refuse" | "lower" | "strict";

const isSet = (value: unknown): boolean => value !== undefined && value !== null;

/**
 * A token count as the APIs take it: a finite integer, at least 1, exactly representable (JSON's
 * `1e400` parses as Infinity, `1e300` is an integer no arithmetic on money may touch unchecked).
 */
function tokenCount(body: Record<string, unknown>, field: string, path: string): number {
  const value = body[field];
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) {
    throw invalidField(path, "expected a positive integer");
  }
  return value;
}

/**
 * The request's output bound: the field the upstream will receive (the one the native API obeys
 * when the client sent two; every one sent is range-checked), capped by the model's
 * `max_output_tokens`; no field: that maximum. Endpoints that produce no output tokens: 0. Throws
 * the 400 naming the field for a value that is not a positive integer, or that is above the
 * maximum unless `aboveMaximum` is `lower`; and the 400 naming `model` when a text endpoint calls a
 * model without text output (`max_output_tokens: 0`, an image model). Reads the body only: no
 * allocation on the hot path.
 */
export function outputBound(body: Record<string, unknown>, endpoint: EndpointName, maxOutputTokens: number, aboveMaximum: AboveMaximum): number {
  const fields = OUTPUT_FIELDS[endpoint];
  if (fields.length === 0) return 0;
  const holder = outputHolder(body, endpoint);
  let obeyed: string | null = null;
  let requested = 0;
  for (const field of fields) {
    if (!isSet(holder[field])) continue;
    const value = tokenCount(holder, field, fieldPath(endpoint, field));
    if (obeyed === null) {
      obeyed = field;
      requested = value;
    }
  }
  if (maxOutputTokens < 1) {
    throw new GatewayError("unsupported_feature", `model: the model '${String(body.model)}' produces no text output`, { param: "model" });
  }
  if (obeyed === null) return maxOutputTokens;
  if (requested <= maxOutputTokens) return requested;
  if (aboveMaximum === "lower") return maxOutputTokens;
  const why = `${requested} is above this model's maximum output of ${maxOutputTokens} tokens`;
  const path = fieldPath(endpoint, obeyed);
  if (aboveMaximum === "refuse") throw invalidField(path, why);
  throw unsupported(path, `${why}; strict_params is on, so it is refused instead of lowered`);
}

/**
 * The output field the request set, as a path in its body (the one its native API obeys when it
 * set two): the field a 400 about its bound names. Null when it set none.
 */
export function outputBoundField(body: Record<string, unknown>, endpoint: EndpointName): string | null {
  const field = obeyedField(outputHolder(body, endpoint), endpoint);
  return field === null ? null : fieldPath(endpoint, field);
}

/** The value of the output field the request set (the one its API obeys), as sent; undefined when it set none. */
export function requestedOutput(body: Record<string, unknown>, endpoint: EndpointName): unknown {
  const holder = outputHolder(body, endpoint);
  const field = obeyedField(holder, endpoint);
  return field === null ? undefined : holder[field];
}

/** The first of `endpoint`'s output fields set in `holder` (the one its API obeys), or null. */
function obeyedField(holder: Record<string, unknown>, endpoint: EndpointName): string | null {
  for (const field of OUTPUT_FIELDS[endpoint]) if (isSet(holder[field])) return field;
  return null;
}

/**
 * The client's output field that the bound lowered (to list in `x-gateway-dropped-params`), or
 * null when the bound is what the client asked for (or it asked for nothing).
 */
export function loweredOutputField(body: Record<string, unknown>, endpoint: EndpointName, bound: number | undefined): string | null {
  if (bound === undefined) return null;
  const holder = outputHolder(body, endpoint);
  const field = obeyedField(holder, endpoint);
  if (field === null) return null;
  const value = holder[field];
  return typeof value === "number" && value > bound ? fieldPath(endpoint, field) : null;
}

/**
 * The same-shape upstream body with exactly the bound in the one output field the client used (the
 * one its API obeys); a second field, which the native API ignores, is removed, so no upstream
 * that reads them in another order can produce more than was reserved. Null when the body already
 * says exactly that (the common case: the client's bytes go upstream as they came), and when the
 * client set no limit: same shape, the upstream's own default is the model's maximum, which is the
 * bound (contract section 15: what the gateway need not change passes untouched). Without a bound
 * (a request that did not pass the route), nothing changes.
 */
export function boundedBody(body: Record<string, unknown>, endpoint: EndpointName, bound: number | undefined): Record<string, unknown> | null {
  const fields = OUTPUT_FIELDS[endpoint];
  if (bound === undefined || fields.length === 0) return null;
  let target: string | null = null;
  let exact = true;
  for (const field of fields) {
    if (!isSet(body[field])) continue;
    if (target === null) {
      target = field;
      if (body[field] !== bound) exact = false;
    } else {
      exact = false;
    }
  }
  if (target === null || exact) return null;
  const copy = { ...body };
  for (const field of fields) if (field !== target) delete copy[field];
  copy[target] = bound;
  return copy;
}

/**
 * A same-shape upstream body: the upstream's own model name and exactly the bound (`boundedBody`);
 * null when neither changes anything, so the client's bytes are relayed as they came.
 */
export function boundedUpstreamBody(request: ParsedRequest, endpoint: EndpointName, upstreamModel: string): Record<string, unknown> | null {
  const bounded = boundedBody(request.body, endpoint, request.outputBound);
  if (request.body.model === upstreamModel) return bounded;
  const body = bounded ?? { ...request.body };
  body.model = upstreamModel;
  return body;
}

/**
 * How many answers the bound applies to: Chat Completions' `n` (range-checked at parse, at most
 * 128) produces that many choices, each up to the bound; every other endpoint one. The
 * reservation's output tokens are `outputBound x outputChoices`.
 */
export function outputChoices(body: Record<string, unknown>, endpoint: EndpointName): number {
  if (endpoint !== "chat.completions") return 1;
  const n = body.n;
  return typeof n === "number" && Number.isSafeInteger(n) && n > 1 ? n : 1;
}
