import type { ServerResponse } from "node:http";
import { GatewayError } from "@gateway/contracts";
import { addHead, type GatewayRequest } from "@gateway/http";
import type { KeyRecord, ModelRecord, ServerOptionRecord } from "@gateway/redis-store";
import type { WireFormat } from "../core/wire-format.ts";
import type { Admission } from "../limits/limiter.ts";
import { outputBound, type AboveMaximum } from "../core/output-bound.ts";
import type { ProxyServices } from "../services.ts";
import { relayRequest, type RelayInput } from "../relay/relay-request.ts";

/**
 * The model a request names (its canonical record) and the key's server option, once the key may
 * call it: 404 for an unknown model, 403 for one the option does not list.
 */
export function allowedModel(services: ProxyServices, key: KeyRecord, name: string): { model: ModelRecord; option: ServerOptionRecord } {
  services.routing.requireLoaded();
  const model = services.routing.model(name);
  if (!model) throw new GatewayError("model_not_found", `The model '${name}' does not exist.`, { param: "model" });
  const option = services.routing.serverOption(key.serverOption);
  if (!option?.models.includes(model.name)) {
    throw new GatewayError("model_not_allowed", `This key may not call the model '${model.name}'.`, { param: "model" });
  }
  return { model, option };
}

/**
 * Whether a value above the model's maximum output is refused or lowered (contract section 14):
 * refused as the native API would refuse it when the client named the model itself (not an alias)
 * in the shape every one of its targets speaks; else lowered and listed, unless the option's
 * `strict_params` refuses what it would otherwise change.
 */
export function aboveMaximum(services: ProxyServices, wire: WireFormat, requested: string, model: ModelRecord, option: ServerOptionRecord): AboveMaximum {
  const lowered: AboveMaximum = option.strictParams ? "strict" : "lower";
  if (requested !== model.name) return lowered;
  // Plain loop: this runs per request, over a model's one to three targets.
  for (const target of services.routing.targets(model)) if (target.upstream.shape !== wire.shape) return lowered;
  return "refuse";
}

/**
 * The handler shared by every model endpoint: key, body fields, model permission, then relay.
 * `checkHeaders` lets an endpoint refuse a bad header of its own (the Anthropic version). The key
 * (app.ts) and the admission come at once when this process holds them (its key cache, the key's lease):
 * then nothing is awaited before the upstream call; errors before it are thrown as they happen.
 */
export function relayRoute(services: ProxyServices, wire: WireFormat, checkHeaders?: (request: GatewayRequest) => void): RelayHandler {
  const withKey = (request: GatewayRequest, response: ServerResponse, key: KeyRecord, keepsState: boolean): Promise<void> => {
    const parsed = wire.parse(request.body);
    if (keepsState) parsed.keepsState = true;
    const { model, option } = allowedModel(services, key, parsed.model);
    // Computed once, before the reservation: the limiter, the translators and the upstream call read it.
    parsed.outputBound = outputBound(parsed.body, wire.endpoint, model.capabilities.maxOutputTokens, aboveMaximum(services, wire, parsed.model, model, option));
    const admission = services.limiter.admit(request.requestId, key, option, model.name, parsed, request.bodyBytes, wire.endpoint);
    const input: RelayInput = { services, request, response, wire, parsed, key, model, traceparent: "" };
    return admission instanceof Promise ? admission.then((admitted) => relayAdmitted(input, admitted)) : relayAdmitted(input, admission);
  };
  // The key was accepted by app.ts from the headers, before the body was read.
  return (request, response, key, keepsState = false) => {
    checkHeaders?.(request);
    return withKey(request, response, key, keepsState);
  };
}

/** A keyed route handler; `keepsState`: the gateway keeps this Responses request's state (`ParsedRequest.keepsState`). */
export type RelayHandler = (request: GatewayRequest, response: ServerResponse, key: KeyRecord, keepsState?: boolean) => Promise<void>;

/**
 * The relay of an admitted request (or its 429), with the admission's `x-ratelimit-*` headers; the
 * reservation is given back if no billing event settled it. `input` is the relay's own, its trace
 * context filled in here.
 */
export async function relayAdmitted(input: RelayInput, admission: Admission): Promise<void> {
  const { services, request, response, wire, model } = input;
  for (const name in admission.headers) addHead(response, name, admission.headers[name]!);
  if (admission.refusal) throw admission.refusal;
  input.traceparent = services.tracing.start(request.requestId, wire.endpoint, model.name, request.headers);
  let failure: unknown = null;
  try {
    await relayRequest(input);
  } catch (error) {
    failure = error;
    throw error;
  } finally {
    services.limiter.release(request.requestId);
    services.tracing.release(request.requestId, failure);
  }
}
