import type { ServerResponse } from "node:http";
import type { GatewayRequest } from "@gateway/http";
import type { KeyRecord } from "@gateway/redis-store";

/**
 * Every proxy route (app.ts): it answers, or throws (rejects with) the error to answer with.
 * `param` is the path's variable part where the route has one (the model id of /v1/models/{id}).
 */
export type RouteHandler = (request: GatewayRequest, response: ServerResponse, param: string) => void | Promise<void>;

/**
 * A route with a JSON body and a client key (the model endpoints): app.ts accepts the key from the
 * headers first and reads the body only then (contract section 14), so the handler gets both.
 */
export type KeyedRouteHandler = (request: GatewayRequest, response: ServerResponse, key: KeyRecord) => void | Promise<void>;
