import { WIRE_FORMATS } from "../shapes/wire-formats.ts";
import type { ProxyServices } from "../services.ts";
import { relayRoute } from "./relay-route.ts";

/** POST /v1/embeddings: relayed to the model's OpenAI-shape targets, billed at the input price. */
export const embeddingsRoute = (services: ProxyServices) => relayRoute(services, WIRE_FORMATS.embeddings);
