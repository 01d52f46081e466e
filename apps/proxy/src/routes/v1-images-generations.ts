import { WIRE_FORMATS } from "../shapes/wire-formats.ts";
import type { ProxyServices } from "../services.ts";
import { relayRoute } from "./relay-route.ts";

/** POST /v1/images/generations */
export const imagesGenerationsRoute = (services: ProxyServices) => relayRoute(services, WIRE_FORMATS["images.generations"]);
