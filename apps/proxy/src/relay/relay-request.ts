import type { ServerResponse } from "node:http";
import type { GatewayRequest } from "@gateway/http";
import { GatewayError, type BillingEvent, EMPTY_USAGE } from "@gateway/contracts";
import type { KeyRecord, ModelRecord } from "@gateway/redis-store";
import { SHAPE_ADAPTERS, type ParsedRequest, type WireFormat } from "../upstreams/index.ts";
import type { ProxyServices } from "../services.ts";
import { AttemptFailure } from "./attempt-failure.ts";
import { planTargets } from "./attempt-plan.ts";
import { clientConnection, type AttemptContext, type AttemptOutcome } from "./attempt-context.ts";
import { jsonAttempt } from "./json-attempt.ts";
import { clientBetas, withRequestDrops } from "./request-drops.ts";
import { DROPPED_PARAMS_HEADER, droppedParamsHeaderValue, withoutFields } from "../translation/shared/dropped-params.ts";
import { streamAttempt } from "./stream-attempt.ts";

/** No drop_params, nothing dropped: one shared empty list. */
const NO_FIELDS: readonly string[] = Object.freeze([]);

export interface RelayInput {
  services: ProxyServices;
  request: GatewayRequest;
  response: ServerResponse;
  wire: WireFormat;
  parsed: ParsedRequest;
  key: KeyRecord;
  model: ModelRecord;
  /** W3C trace context for the upstream calls (this request's span as their parent). */
  traceparent: string;
}

/**
 * Sends the request to the model's targets in order until one answers: failover only before the
 * first byte reaches the client, at most MAX_ATTEMPTS tries, open circuits last. Exactly one
 * billing event per request, whatever happened.
 */
export async function relayRequest(input: RelayInput): Promise<void> {
  const { services, request, response, wire, parsed, key, model, traceparent } = input;
  // Per target: relayed as is, or translated to the upstream's shape (a 400 when no target can take it).
  const strictParams = services.routing.serverOption(key.serverOption)?.strictParams ?? false;
  // models[].drop_params: removed before any upstream call, same shape too (then the bytes are re-serialised).
  const dropParams = model.dropParams ?? NO_FIELDS;
  const modelDrop = dropParams.length > 0 ? withoutFields(parsed.body, dropParams) : null;
  const modelDropped = modelDrop?.removed ?? NO_FIELDS;
  const upstreamParsed = modelDrop && modelDropped.length > 0 ? { ...parsed, body: modelDrop.body } : parsed;
  const targets = withRequestDrops(planTargets(services.routing.order(model, services.breaker), wire, upstreamParsed, strictParams), {
    modelDropped,
    dropParams,
    betas: clientBetas(request.headers["anthropic-beta"]).length > 0,
    strict: strictParams,
  });
  const connection = clientConnection(response);

  const bill = (outcome: AttemptOutcome, upstream: string | null, upstreamModel: string | null) => {
    const event: BillingEvent = {
      requestId: request.requestId,
      apiKeyId: key.id,
      vendorId: key.vendorId,
      serverOption: key.serverOption,
      model: model.name,
      endpoint: wire.endpoint,
      stream: parsed.stream,
      upstream,
      upstreamModel,
      status: outcome.status,
      estimated: outcome.estimated,
      usage: outcome.usage,
      startedAt: request.startedAt,
      finishedAt: Date.now(),
      ttfbMs: outcome.ttfbMs,
    };
    services.billing.record(event);
  };

  const attempts = services.config.MAX_ATTEMPTS;
  let lastFailure: AttemptFailure | null = null;
  let lastTarget = targets[0]!.target;
  for (let index = 0; index < attempts && !connection.gone; index += 1) {
    const { target, translation, upstreamRequest, droppedParams } = targets[index % targets.length]!;
    lastTarget = target;
    const context: AttemptContext = {
      client: services.upstreams,
      response,
      requestId: request.requestId,
      wire,
      upstreamWire: translation?.upstreamWire ?? wire,
      translation,
      adapter: SHAPE_ADAPTERS[target.upstream.shape],
      request: upstreamParsed,
      upstreamRequest,
      droppedParams,
      requestBytes: request.bodyBytes,
      rawBody: modelDropped.length > 0 ? null : request.rawBody,
      clientHeaders: request.headers,
      traceparent,
      target,
      clientConnection: connection,
      streamIdleTimeoutMs: services.config.STREAM_IDLE_TIMEOUT_MS,
      startedAt: request.startedAt,
    };
    // x-gateway-dropped-params: set before the answer's head is written (JSON, stream, or the upstream's 4xx).
    const dropped = droppedParamsHeaderValue(droppedParams);
    if (dropped) response.setHeader(DROPPED_PARAMS_HEADER, dropped);
    else response.removeHeader(DROPPED_PARAMS_HEADER);
    try {
      const outcome = parsed.stream ? await streamAttempt(context) : await jsonAttempt(context);
      if (outcome.status === "ok") services.breaker.recordSuccess(target.upstream.name);
      bill(outcome, target.upstream.name, target.model);
      return;
    } catch (error) {
      const failure = error instanceof AttemptFailure ? error : new AttemptFailure(String(error), { retryable: false, cause: error });
      services.logger.warn({ requestId: request.requestId, upstream: target.upstream.name, attempt: index + 1, reason: failure.message }, "upstream attempt failed");
      if (!failure.retryable) {
        bill({ status: "error", usage: EMPTY_USAGE, estimated: false, ttfbMs: null }, target.upstream.name, target.model);
        throw failure.clientError ?? new GatewayError("internal_error", "The gateway hit an internal error.", { cause: error });
      }
      services.breaker.recordFailure(target.upstream.name);
      lastFailure = failure;
    }
  }
  // Every attempt failed: nothing was answered with those drops.
  if (!response.headersSent) response.removeHeader(DROPPED_PARAMS_HEADER);
  const status = connection.gone ? "client_aborted" : "error";
  bill({ status, usage: EMPTY_USAGE, estimated: false, ttfbMs: null }, lastTarget.upstream.name, lastTarget.model);
  if (lastFailure?.timeout) throw new GatewayError("upstream_timeout", `Every upstream attempt for ${model.name} timed out.`);
  throw new GatewayError("upstream_error", `Every upstream attempt for ${model.name} failed: ${lastFailure?.message ?? "no attempt made"}.`);
}
