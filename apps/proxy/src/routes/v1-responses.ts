import { WIRE_FORMATS } from "../upstreams/index.ts";
import type { ProxyServices } from "../services.ts";
import { relayRoute } from "./relay-route.ts";

/** POST /v1/responses */
export const responsesRoute = (services: ProxyServices) => relayRoute(services, WIRE_FORMATS.responses);
