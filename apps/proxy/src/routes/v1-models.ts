import type { ServerResponse } from "node:http";
import { sendJson, type GatewayRequest } from "@gateway/http";
import { GatewayError } from "@gateway/contracts";
import type { ModelRecord } from "@gateway/redis-store";
import type { ProxyServices } from "../services.ts";
import { authenticate } from "../auth/authenticate.ts";

/** One model object readable by both SDKs (contract section 5). */
function modelObject(model: ModelRecord) {
  return {
    id: model.name,
    object: "model",
    type: "model",
    created: model.created,
    created_at: new Date(model.created * 1000).toISOString(),
    owned_by: model.ownedBy,
    display_name: model.displayName,
  };
}

/** GET /v1/models: exactly the models the key's server option allows, by canonical name (never an alias). */
export function listModelsRoute(services: ProxyServices) {
  return async (request: GatewayRequest, response: ServerResponse): Promise<void> => {
    const key = await authenticate(request.headers, services.keyCache);
    services.routing.requireLoaded();
    const data = services.routing.allowedModels(key.serverOption).map(modelObject);
    sendJson(response, 200, { object: "list", data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null });
  };
}

/**
 * GET /v1/models/{id}: `id` is the rest of the path, decoded (it may hold slashes). An alias
 * answers the model it names, under its canonical name, as OpenAI answers a known alias.
 */
export function getModelRoute(services: ProxyServices) {
  return async (request: GatewayRequest, response: ServerResponse, id: string): Promise<void> => {
    const key = await authenticate(request.headers, services.keyCache);
    services.routing.requireLoaded();
    const model = services.routing.model(id);
    if (!model || !services.routing.serverOption(key.serverOption)?.models.includes(model.name)) throw new GatewayError("model_not_found", `The model '${id}' does not exist.`, { param: "model" });
    sendJson(response, 200, modelObject(model));
  };
}
