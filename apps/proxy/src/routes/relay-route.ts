import { GatewayError } from "@gateway/contracts";
import type { GatewayRequest } from "@gateway/http";
import type { WireFormat } from "../upstreams/index.ts";
import type { ProxyServices } from "../services.ts";
import { authenticate } from "../auth/authenticate.ts";
import { relayRequest } from "../relay/relay-request.ts";
import type { RouteHandler } from "./route-handler.ts";

/**
 * The handler shared by every model endpoint: key, body fields, model permission, then relay.
 * `checkHeaders` lets an endpoint refuse a bad header of its own (the Anthropic version).
 */
export function relayRoute(services: ProxyServices, wire: WireFormat, checkHeaders?: (request: GatewayRequest) => void): RouteHandler {
  return async (request, response) => {
    checkHeaders?.(request);
    const key = await authenticate(request.headers, services.keyCache);
    const parsed = wire.parse(request.body);
    services.routing.requireLoaded();
    const model = services.routing.model(parsed.model);
    if (!model) throw new GatewayError("model_not_found", `The model '${parsed.model}' does not exist.`, { param: "model" });
    const option = services.routing.serverOption(key.serverOption);
    if (!option?.models.includes(model.name)) {
      throw new GatewayError("model_not_allowed", `This key may not call the model '${model.name}'.`, { param: "model" });
    }
    const admission = await services.limiter.admit(request.requestId, key, option, model.name, parsed, request.bodyBytes, wire.endpoint === "images.generations");
    for (const name in admission.headers) response.setHeader(name, admission.headers[name]!);
    if (admission.refusal) throw admission.refusal;
    const traceparent = services.tracing.start(request.requestId, `${wire.endpoint} ${model.name}`, { "gen_ai.request.model": model.name, "gateway.endpoint": wire.endpoint }, request.headers);
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
