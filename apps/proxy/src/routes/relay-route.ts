import { GatewayError } from "@gateway/contracts";
import { addHead, type GatewayRequest } from "@gateway/http";
import type { KeyRecord, ModelRecord, ServerOptionRecord } from "@gateway/redis-store";
import type { WireFormat } from "../upstreams/index.ts";
import type { ProxyServices } from "../services.ts";
import { authenticate } from "../auth/authenticate.ts";
import { relayRequest } from "../relay/relay-request.ts";
import type { RouteHandler } from "./route-handler.ts";

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
 * The handler shared by every model endpoint: key, body fields, model permission, then relay.
 * `checkHeaders` lets an endpoint refuse a bad header of its own (the Anthropic version).
 */
export function relayRoute(services: ProxyServices, wire: WireFormat, checkHeaders?: (request: GatewayRequest) => void): RouteHandler {
  return async (request, response) => {
    checkHeaders?.(request);
    const key = await authenticate(request.headers, services.keyCache);
    const parsed = wire.parse(request.body);
    const { model, option } = allowedModel(services, key, parsed.model);
    const admission = await services.limiter.admit(request.requestId, key, option, model.name, parsed, request.bodyBytes, wire.endpoint);
    for (const name in admission.headers) addHead(response, name, admission.headers[name]!);
    if (admission.refusal) throw admission.refusal;
    const traceparent = services.tracing.start(request.requestId, wire.endpoint, model.name, request.headers);
    let failure: unknown = null;
    try {
      await relayRequest({ services, request, response, wire, parsed, key, model, traceparent });
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      services.limiter.release(request.requestId);
      services.tracing.release(request.requestId, failure);
    }
  };
}
