import type { ServerResponse } from "node:http";
import type { GatewayRequest } from "@gateway/http";

/**
 * Every proxy route (app.ts): it answers, or throws (rejects with) the error to answer with.
 * `param` is the path's variable part where the route has one (the model id of /v1/models/{id}).
 */
export type RouteHandler = (request: GatewayRequest, response: ServerResponse, param: string) => void | Promise<void>;
