import { GatewayError } from "@gateway/contracts";
import { WIRE_FORMATS } from "../upstreams/index.ts";
import type { ProxyServices } from "../services.ts";
import type { RouteHandler } from "./route-handler.ts";
import { relayRoute } from "./relay-route.ts";

/** POST /v1/responses */
export const responsesRoute = (services: ProxyServices) => relayRoute(services, WIRE_FORMATS.responses);

/**
 * GET /v1/responses: Codex's built-in provider first asks for a WebSocket here. Until Responses
 * over WebSocket is served (contract section 18), 426 with the envelope makes it fall back to HTTP
 * at once (404, 405 or 501 cost it seven retries, about 6.6 s; contract section 15). A GET without
 * the upgrade is an unknown route, as before.
 */
export const responsesWebSocketRoute: RouteHandler = (request) => {
  const upgrade = request.headers.upgrade;
  if (typeof upgrade === "string" && upgrade.toLowerCase() === "websocket") {
    throw new GatewayError("websocket_not_supported", "Responses over WebSocket is not served here; send the same request as POST /v1/responses over HTTP");
  }
  throw new GatewayError("route_not_found", `Unknown route: ${request.method} /v1/responses`);
};
