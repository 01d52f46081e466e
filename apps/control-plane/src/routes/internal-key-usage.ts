import { GatewayError } from "@gateway/contracts";
import type { ControlPlaneServices } from "../services.ts";
import { keyUsage } from "../usage/key-usage.ts";
import { internalRoute } from "./internal-route.ts";

function parseDate(value: unknown, name: string): Date | undefined {
  if (value === undefined) return undefined;
  const date = typeof value === "string" ? new Date(value) : new Date(Number.NaN);
  // Years 0001 to 9999: JavaScript parses instants (year -271821) that Postgres cannot hold.
  const year = date.getUTCFullYear();
  if (Number.isNaN(date.getTime()) || year < 1 || year > 9999) throw new GatewayError("invalid_body", `${name}: expected an ISO 8601 date-time`, { param: name });
  return date;
}

/** GET /internal/keys/{id}/usage: the proxy's /v1/usage asks here, with the shared internal token. */
export function internalKeyUsageRoute(services: ControlPlaneServices) {
  return internalRoute(services, async (request, response) => {
    const range = { from: parseDate(request.query.from, "from"), to: parseDate(request.query.to, "to") };
    response.json(await keyUsage(services.db.prisma, String(request.params.id), range));
  });
}
