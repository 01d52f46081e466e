import { WIRE_FORMATS } from "../shapes/wire-formats.ts";
import type { ProxyServices } from "../services.ts";
import { relayRoute } from "./relay-route.ts";

/** POST /v1/chat/completions */
export const chatCompletionsRoute = (services: ProxyServices) => relayRoute(services, WIRE_FORMATS["chat.completions"]);
