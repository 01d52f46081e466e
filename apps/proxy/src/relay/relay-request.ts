import type { ServerResponse } from "node:http";
import type { GatewayRequest } from "@gateway/http";
import { GatewayError, type Attempt, type BillingEvent, EMPTY_USAGE } from "@gateway/contracts";
import type { KeyRecord, ModelRecord } from "@gateway/redis-store";
import { SHAPE_ADAPTERS } from "../upstreams/index.ts";
import type { ParsedRequest, WireFormat } from "../core/wire-format.ts";
import type { ProxyServices } from "../services.ts";
import { AttemptFailure } from "./attempt-failure.ts";
import { nextTarget, planTargets, type PlannedTarget } from "./attempt-plan.ts";
import { RunningRequest } from "./running-request.ts";
import { clientConnection, type AttemptContext, type AttemptOutcome } from "./attempt-context.ts";
import { jsonAttempt } from "./json-attempt.ts";
import { clientBetas, clientRequestDrops, setDroppedParamsHeader, withRequestDrops } from "./request-drops.ts";
import { DROPPED_PARAMS_HEADER } from "../core/drops.ts";
import { streamAttempt } from "./stream-attempt.ts";
import { loweredOutputField } from "../core/output-bound.ts";
import { answeredAttempt, failedAttempt } from "./attempt-record.ts";
import { withEncryptedReasoning } from "../responses-state/stateful-request.ts";

/** The most attempts a billing event carries (its schema's bound; MAX_ATTEMPTS is rarely near it). */
const ATTEMPTS_KEPT = 16;

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
 * first byte reaches the client, at most MAX_ATTEMPTS tries, open circuits last, never the same
 * target after it timed out. Exactly one billing event per request, whatever happened; the request
 * is in the in-flight registry until that event is recorded.
 */
export async function relayRequest(input: RelayInput): Promise<void> {
  const { services, request, wire, parsed, key, model } = input;
  const running = new RunningRequest({
    requestId: request.requestId,
    keyId: key.id,
    keyHash: services.keyCache.hashOf(key),
    vendorId: key.vendorId,
    serverOption: key.serverOption,
    model: model.name,
    endpoint: wire.endpoint,
    stream: parsed.stream,
    startedAt: request.startedAt,
    requestBytes: request.bodyBytes,
  });
  // The journal's write of this request: no upstream is called before it (contract section 14).
  const journaled = services.inFlight.add(running);
  // The upstream attempts, in order, as the billing event carries them (metrics and health read them there).
  const attempts: Attempt[] = [];

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
      attempts,
    };
    services.billing.record(event);
    services.inFlight.remove(request.requestId);
  };

  try {
    await relayAttempts(input, running, bill, attempts, journaled);
  } finally {
    // A path that billed nothing (a bug) must not leave the request in the registry for ever.
    services.inFlight.remove(request.requestId);
  }
}

type Bill = (outcome: AttemptOutcome, upstream: string | null, upstreamModel: string | null) => void;

const NOTHING_BILLED: AttemptOutcome = Object.freeze({ status: "error", usage: EMPTY_USAGE, estimated: false, ttfbMs: null });

async function relayAttempts(input: RelayInput, running: RunningRequest, bill: Bill, attempts: Attempt[], journaled: Promise<void> | undefined): Promise<void> {
  const { services, request, response, wire, parsed, model, traceparent } = input;
  // Spans only when exported: without, not even their attributes are made.
  const tracing = services.tracing.enabled ? services.tracing : null;
  if (tracing !== null) tracing.describe(request.requestId, input.key, parsed, wire);
  // Per target: relayed as is, or translated to the upstream's shape (a 400 when no target can take it).
  const strictParams = services.routing.serverOption(input.key.serverOption)?.strictParams ?? false;
  const dropParams = model.dropParams ?? NO_FIELDS;
  let upstreamParsed: ParsedRequest;
  let targets: PlannedTarget[];
  try {
    // models[].drop_params and what the model's capabilities refuse: removed from the client's request
    // before any translation, same shape too (then the bytes are re-serialised).
    const client = clientRequestDrops(parsed, wire.endpoint, model, strictParams);
    upstreamParsed = client.request;
    // The client's output field that the output bound lowered (contract section 14) is listed with them.
    const lowered = loweredOutputField(parsed.body, wire.endpoint, parsed.outputBound);
    targets = withRequestDrops(planTargets(services.routing.order(model, services.breaker), wire, upstreamParsed, strictParams, model.capabilities), {
      modelDropped: lowered === null ? client.dropped : [lowered, ...client.dropped],
      dropParams,
      betas: clientBetas(request.headers["anthropic-beta"]).length > 0,
      strict: strictParams,
      endpoint: wire.endpoint,
      foldSystem: !model.capabilities.midConversationSystem,
    });
    // A kept Responses request asks a same-shape reasoning upstream for what the next turn replays.
    if (parsed.keepsState === true && model.capabilities.reasoning) {
      targets = targets.map((planned) => (!planned.translation ? { ...planned, upstreamRequest: withEncryptedReasoning(planned.upstreamRequest) } : planned));
    }
  } catch (error) {
    // Refused before any upstream call (the request's own 400): its one ledger row bills nothing.
    bill(NOTHING_BILLED, null, null);
    throw error;
  }
  const connection = clientConnection(response);
  // Planned while the journal's write was out; a kill from here on finds the request in the journal.
  if (journaled !== undefined) await journaled;

  const maxAttempts = services.config.MAX_ATTEMPTS;
  let lastFailure: AttemptFailure | null = null;
  let lastTarget = targets[0]!.target;
  // Made at the first timeout only: indexes of the targets that timed out.
  let timedOut: Set<number> | null = null;
  let from = 0;
  for (let tries = 0; tries < maxAttempts && !connection.gone && running.terminated === null; tries += 1) {
    const index = nextTarget(targets.length, from, timedOut);
    if (index === -1) break;
    from = index + 1;
    const { target, translation, upstreamRequest, droppedParams } = targets[index]!;
    lastTarget = target;
    running.upstream = target.upstream.name;
    running.upstreamModel = target.model;
    const attemptStart = Date.now();
    // The attempt's span (a child of the request's): the upstream is told it is its parent.
    const span = tracing === null ? null : tracing.attempt(request.requestId, target, tries + 1, translation?.upstreamWire ?? wire);
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
      // The client's bytes only while this target's body is the client's own (nothing removed or folded).
      rawBody: upstreamRequest.body === parsed.body ? request.rawBody : null,
      clientHeaders: request.headers,
      traceparent: span === null ? traceparent : span.traceparent,
      observer: span ?? undefined,
      target,
      clientConnection: connection,
      streamIdleTimeoutMs: services.config.STREAM_IDLE_TIMEOUT_MS,
      disconnectDrainMs: services.config.DISCONNECT_DRAIN_MS,
      running,
      tokenCounter: services.tokenCounter,
      logger: services.logger,
      startedAt: request.startedAt,
    };
    // x-gateway-dropped-params: set before the answer's head is written (JSON, stream, or the upstream's 4xx).
    setDroppedParamsHeader(response, droppedParams);
    try {
      const outcome = parsed.stream ? await streamAttempt(context) : await jsonAttempt(context);
      const attempt = answeredAttempt(target, outcome, attemptStart, request.startedAt, Date.now());
      if (attempts.length < ATTEMPTS_KEPT) attempts.push(attempt);
      span?.end(attempt, outcome);
      if (outcome.status === "ok") services.breaker.recordSuccess(target.upstream.name);
      if (outcome.reason !== undefined) services.logger.warn({ requestId: request.requestId, upstream: target.upstream.name, reason: outcome.reason }, "request ended in an error after its first byte");
      bill(outcome, target.upstream.name, target.model);
      return;
    } catch (error) {
      const failure = error instanceof AttemptFailure ? error : new AttemptFailure(String(error), { retryable: false, cause: error });
      const attempt = failedAttempt(target, failure, attemptStart, Date.now());
      if (attempts.length < ATTEMPTS_KEPT) attempts.push(attempt);
      span?.end(attempt, failure.outcome);
      services.logger.warn({ requestId: request.requestId, upstream: target.upstream.name, attempt: tries + 1, reason: failure.message }, "upstream attempt failed");
      if (!failure.retryable) {
        bill(failure.outcome ?? NOTHING_BILLED, target.upstream.name, target.model);
        throw failure.clientError ?? new GatewayError("internal_error", "The gateway hit an internal error.", { cause: error });
      }
      services.breaker.recordFailure(target.upstream.name);
      if (failure.timeout) (timedOut ??= new Set()).add(index);
      lastFailure = failure;
    }
  }
  // Every attempt failed: nothing was answered with those drops.
  if (!response.headersSent) response.removeHeader(DROPPED_PARAMS_HEADER);
  const status = connection.gone ? "client_aborted" : "error";
  bill({ status, usage: EMPTY_USAGE, estimated: false, ttfbMs: null }, lastTarget.upstream.name, lastTarget.model);
  if (running.terminated !== null) throw running.terminated;
  if (lastFailure?.timeout) throw new GatewayError("upstream_timeout", `Every upstream attempt for ${model.name} timed out.`);
  // The gateway's own words: the upstream's (which may name its account) are in the log above.
  throw new GatewayError("upstream_error", `Every upstream attempt for ${model.name} failed: ${lastFailure?.shown ?? "no attempt made"}.`);
}
