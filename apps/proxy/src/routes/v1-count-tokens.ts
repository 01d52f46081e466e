import type { ServerResponse } from "node:http";
import { GatewayError } from "@gateway/contracts";
import { addHead, sendJson, type GatewayRequest } from "@gateway/http";
import { SHAPE_ADAPTERS } from "../upstreams/index.ts";
import { WIRE_FORMATS } from "../shapes/wire-formats.ts";
import type { ParsedRequest, WireFormat } from "../core/wire-format.ts";
import type { ProxyServices } from "../services.ts";
import type { Target } from "../routing/routing-table.ts";
import type { Translation } from "../core/pipeline.ts";
import { AttemptFailure } from "../relay/attempt-failure.ts";
import { clientConnection, type AttemptContext } from "../relay/attempt-context.ts";
import { jsonAttempt } from "../relay/json-attempt.ts";
import { nextTarget, type PlannedTarget } from "../relay/attempt-plan.ts";
import { DROPPED_PARAMS_HEADER } from "../core/drops.ts";
import { clientBetas, clientRequestDrops, countPlan, setDroppedParamsHeader } from "../relay/request-drops.ts";
import { encodingForModel } from "../tokens/count-tokens.ts";
import { allowedModel } from "./relay-route.ts";
import { checkVersionHeader } from "./v1-messages.ts";
import type { KeyedRouteHandler } from "./route-handler.ts";

const wire = WIRE_FORMATS["messages.count_tokens"];

/**
 * POST /v1/messages/count_tokens (`?beta=true` too): a Messages body without `max_tokens` ->
 * `{"input_tokens": N}` (contract section 11). Forwarded to the model's Anthropic-shape targets in
 * order (failover before the first byte, as every relay); a model with none, or whose Anthropic
 * targets all failed while it has OpenAI-shape ones, is counted here on the Chat Completions request
 * the body translates to. Never billed: it takes one slot of the key's requests per minute, and is
 * refused (429) like any request of a key whose quota or budget is spent. A local count is bounded
 * (TOKEN_COUNT_MAX_BYTES) and runs on a worker thread (tokens/token-counter-pool.ts).
 */
export function countTokensRoute(services: ProxyServices): KeyedRouteHandler {
  const maxCountedBytes = services.config.TOKEN_COUNT_MAX_BYTES;
  return async (request, response, key) => {
    checkVersionHeader(request);
    const parsed = wire.parse(request.body);
    const { model, option } = allowedModel(services, key, parsed.model);
    const admission = await services.limiter.admitRequestOnly(request.requestId, key, option);
    for (const name in admission.headers) addHead(response, name, admission.headers[name]!);
    if (admission.refusal) throw admission.refusal;
    const targets = services.routing.order(model, services.breaker);
    const anthropic = targets.filter((target) => target.upstream.shape === "anthropic");
    const openai = targets.find((target) => target.upstream.shape === "openai");
    const strictParams = option.strictParams ?? false;
    // models[].drop_params and what the model's capabilities refuse (thinking to a model without
    // reasoning, sampling to one without it): removed before any upstream call and listed, or the
    // 400 under strict_params, as on /v1/messages, so the two count and send the same request.
    const client = clientRequestDrops(parsed, wire.endpoint, model, strictParams);
    const betas = clientBetas(request.headers["anthropic-beta"]).length > 0;
    if (anthropic.length > 0) {
      const traceparent = services.tracing.start(request.requestId, wire.endpoint, model.name, request.headers);
      let failure: unknown = null;
      try {
        // Mid-conversation system messages folded as /v1/messages sends them (contract section 15).
        const planned = countPlan(anthropic, client, model, betas, strictParams);
        if (await forwardPlanned(services, request, response, parsed.body, request.rawBody, planned, model.name, traceparent, openai !== undefined, wire)) return;
      } catch (error) {
        failure = error;
        throw error;
      } finally {
        services.tracing.release(request.requestId, failure);
      }
    }
    if (!openai) throw new GatewayError("unsupported_feature", `Model ${model.name} has no upstream to count tokens with.`, { param: "model" });
    // Counting here costs this process's CPU (tokenizing is far slower than parsing): bounded.
    if (request.bodyBytes > maxCountedBytes) {
      throw new GatewayError("request_too_large", `Token counting for ${model.name} takes request bodies up to ${maxCountedBytes} bytes.`);
    }
    // The Chat Completions request the body translates to, betas dropped (under strict_params: the 400 naming them).
    const local = countPlan([openai], client, model, betas, strictParams)[0]!;
    const inputTokens = await services.tokenCounter.count(local.upstreamRequest.body, encodingForModel(openai.model));
    setDroppedParamsHeader(response, local.droppedParams);
    sendJson(response, 200, { input_tokens: inputTokens });
  };
}

/**
 * The Anthropic-shape targets in order until one answers (at most MAX_ATTEMPTS tries); the upstream's
 * own bytes reach the client. False when every attempt failed and `fallback` says the count can be
 * made here instead; else the last failure is thrown as the relay would. `countWire`: the count's
 * wire format (a Gemini client's countTokens forwards to Gemini-shape targets the same way), each
 * target sent `parsed` as it came. `translation`: the answer's, when the client's shape is not the
 * count's (a Gemini countTokens on Anthropic-shape targets: `{"totalTokens": N}` back).
 */
export function forward(
  services: ProxyServices,
  request: GatewayRequest,
  response: ServerResponse,
  parsed: ParsedRequest,
  rawBody: Buffer | null,
  modelName: string,
  targets: readonly Target[],
  traceparent: string,
  fallback: boolean,
  countWire: WireFormat = wire,
  translation: Translation | null = null,
): Promise<boolean> {
  const planned = targets.map((target): PlannedTarget => ({ target, translation, upstreamRequest: parsed, droppedParams: NONE_DROPPED }));
  return forwardPlanned(services, request, response, parsed.body, rawBody, planned, modelName, traceparent, fallback, countWire);
}

/** Nothing dropped: one shared empty list. */
const NONE_DROPPED: readonly string[] = Object.freeze([]);

/**
 * `forward` over a plan: each target gets its planned request (the client's bytes, `rawBody`, while
 * that is still `clientBody`) and its answer lists the plan's paths in `x-gateway-dropped-params`,
 * set before each attempt as the relay sets it.
 */
async function forwardPlanned(
  services: ProxyServices,
  request: GatewayRequest,
  response: ServerResponse,
  clientBody: Record<string, unknown>,
  rawBody: Buffer | null,
  targets: readonly PlannedTarget[],
  modelName: string,
  traceparent: string,
  fallback: boolean,
  countWire: WireFormat,
): Promise<boolean> {
  const connection = clientConnection(response);
  let lastFailure: AttemptFailure | null = null;
  // A timed-out target is not tried again (contract section 14); made at the first timeout only.
  let timedOut: Set<number> | null = null;
  let from = 0;
  for (let attempt = 0; attempt < services.config.MAX_ATTEMPTS && !connection.gone; attempt += 1) {
    const index = nextTarget(targets.length, from, timedOut);
    if (index === -1) break;
    from = index + 1;
    const { target, translation, upstreamRequest, droppedParams } = targets[index]!;
    const context: AttemptContext = {
      client: services.upstreams,
      response,
      requestId: request.requestId,
      wire: countWire,
      upstreamWire: countWire,
      translation,
      adapter: SHAPE_ADAPTERS[countWire.shape],
      request: upstreamRequest,
      upstreamRequest,
      droppedParams,
      requestBytes: request.bodyBytes,
      rawBody: upstreamRequest.body === clientBody ? rawBody : null,
      clientHeaders: request.headers,
      traceparent,
      target,
      clientConnection: connection,
      streamIdleTimeoutMs: services.config.STREAM_IDLE_TIMEOUT_MS,
      startedAt: request.startedAt,
    };
    setDroppedParamsHeader(response, droppedParams);
    try {
      const outcome = await jsonAttempt(context);
      if (outcome.status === "ok") services.breaker.recordSuccess(target.upstream.name);
      return true;
    } catch (error) {
      const failure = error instanceof AttemptFailure ? error : new AttemptFailure(String(error), { retryable: false, cause: error });
      services.logger.warn({ requestId: request.requestId, upstream: target.upstream.name, attempt: attempt + 1, reason: failure.message }, "token count attempt failed");
      if (!failure.retryable) throw failure.clientError ?? new GatewayError("internal_error", "The gateway hit an internal error.", { cause: error });
      services.breaker.recordFailure(target.upstream.name);
      if (failure.timeout) (timedOut ??= new Set()).add(index);
      lastFailure = failure;
    }
  }
  if (connection.gone) return true;
  // Every attempt failed: nothing was answered with those drops.
  if (!response.headersSent) response.removeHeader(DROPPED_PARAMS_HEADER);
  if (fallback) return false;
  if (lastFailure?.timeout) throw new GatewayError("upstream_timeout", `Every upstream attempt to count tokens for ${modelName} timed out.`);
  throw new GatewayError("upstream_error", `Every upstream attempt to count tokens for ${modelName} failed: ${lastFailure?.shown ?? "no attempt made"}.`);
}
