import type { GatewayRequest } from "@gateway/http";
import { GatewayError } from "@gateway/contracts";
import { WIRE_FORMATS } from "../shapes/wire-formats.ts";
import type { ProxyServices } from "../services.ts";
import { relayRoute } from "./relay-route.ts";

const VERSION = /^\d{4}-\d{2}-\d{2}$/;

/** `anthropic-version` or `shapeb-version`: any YYYY-MM-DD, absent means 2023-06-01 (contract section 1). */
export function checkVersionHeader(request: GatewayRequest): void {
  for (const name of ["anthropic-version", "shapeb-version"] as const) {
    const value = request.headers[name];
    if (value !== undefined && (typeof value !== "string" || !VERSION.test(value))) {
      throw new GatewayError("invalid_header", `${name}: expected a date of the form YYYY-MM-DD`, { param: name });
    }
  }
}

/** POST /v1/messages */
export const messagesRoute = (services: ProxyServices) => relayRoute(services, WIRE_FORMATS.messages, checkVersionHeader);
