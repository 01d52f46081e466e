import { WIRE_FORMATS } from "../upstreams/index.ts";
import type { ProxyServices } from "../services.ts";
import { relayRoute } from "./relay-route.ts";

/** POST /v1/chat/completions */
export const chatCompletionsRoute = (services: ProxyServices) => relayRoute(services, WIRE_FORMATS["chat.completions"]);
