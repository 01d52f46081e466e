import type { Request, Response } from "express";
import type { ControlPlaneServices } from "../services.ts";
import { keyUsage } from "../usage/key-usage.ts";
import { usageQuerySchema } from "../vendors/api-schemas.ts";
import { findVendorKey } from "../vendors/key-object.ts";
import { parseInput } from "../vendors/parse-input.ts";
import { vendorOf } from "../vendors/vendor-auth.ts";

/**
 * GET /api/keys/{id}/usage: the /v1/usage body of one of the vendor's keys (scope usage:read),
 * optionally within `?from=&to=` (ISO 8601).
 */
export function keyUsageRoute(services: ControlPlaneServices) {
  return async (request: Request<{ id: string }>, response: Response): Promise<void> => {
    const query = parseInput(usageQuerySchema, request.query, "query");
    const key = await findVendorKey(services.db.prisma, vendorOf(request).vendorId, request.params.id);
    const range = { from: query.from === undefined ? undefined : new Date(query.from), to: query.to === undefined ? undefined : new Date(query.to) };
    response.json(await keyUsage(services.db.prisma, key.id, range));
  };
}
