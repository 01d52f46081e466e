import type { ServerResponse } from "node:http";
import { GatewayError } from "@gateway/contracts";
import { sendJson, type GatewayRequest } from "@gateway/http";
import type { ProxyServices } from "../services.ts";
import { authenticate } from "../auth/authenticate.ts";
import { listPage } from "../responses-state/list-page.ts";
import type { RouteHandler } from "./route-handler.ts";

const INPUT_ITEMS = "/input_items";

/** The 404 of a response that is not the caller's vendor's (or not stored): ids are not probed. */
export const responseNotFound = (id: string) => new GatewayError("not_found", `Response with id '${id}' not found.`);

function queryOf(request: GatewayRequest): URLSearchParams {
  return new URL(request.url ?? "/", "http://proxy").searchParams;
}

/**
 * `GET /v1/responses/{id}`, `DELETE /v1/responses/{id}` and `GET /v1/responses/{id}/input_items`
 * (contract section 18); `param` is the path after `/v1/responses/`. The key's vendor's stored
 * responses only: another vendor's id is a 404, as an unknown one. `input_items` is the whole
 * input the response was made from (its previous responses resolved), cursor-paginated as the API.
 */
export function responseByIdRoute(services: ProxyServices): RouteHandler {
  const store = services.responsesState;
  return async (request: GatewayRequest, response: ServerResponse, param: string) => {
    const key = await authenticate(request.headers, services.keyCache);
    const listing = param.endsWith(INPUT_ITEMS);
    const id = listing ? param.slice(0, -INPUT_ITEMS.length) : param;
    if (id.length === 0 || id.includes("/")) throw new GatewayError("route_not_found", `Unknown route: ${request.method} /v1/responses/${param}`);
    if (request.method === "DELETE") {
      if (listing) throw new GatewayError("route_not_found", `Unknown route: DELETE /v1/responses/${param}`);
      if (!(await store.deleteResponse(key.vendorId, id))) throw responseNotFound(id);
      sendJson(response, 200, { id, object: "response", deleted: true });
      return;
    }
    const stored = await store.response(key.vendorId, id);
    if (stored === null) throw responseNotFound(id);
    sendJson(response, 200, listing ? listPage(stored.input, queryOf(request)) : stored.response);
  };
}
