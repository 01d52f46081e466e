import type { Request, Response } from "express";
import { GatewayError } from "@gateway/contracts";
import type { ControlPlaneServices } from "../services.ts";
import { requestLog, requestPositionSchema } from "../usage/request-log.ts";
import { decodeCursor } from "../vendors/pagination.ts";
import { parseInput } from "../vendors/parse-input.ts";
import { requestLogQuerySchema } from "../vendors/report-schemas.ts";
import { vendorOf } from "../vendors/vendor-auth.ts";

/**
 * GET /api/requests: the vendor's requests newest first (scope usage:read), filtered by `id`,
 * `key_id`, `model`, `status` and a `[from, to)` window. An id, key or model the vendor does not
 * have matches nothing; a malformed filter is a 400 naming it.
 */
export function requestLogRoute(services: ControlPlaneServices) {
  return async (request: Request, response: Response): Promise<void> => {
    const query = parseInput(requestLogQuerySchema, request.query, "query");
    if (query.from !== undefined && query.to !== undefined && query.from > query.to) {
      throw new GatewayError("invalid_body", "from: must not be after to", { param: "from" });
    }
    const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor, requestPositionSchema);
    const filter = { vendorId: vendorOf(request).vendorId, id: query.id, keyId: query.key_id, model: query.model, status: query.status, from: query.from, to: query.to };
    response.json(await requestLog(services.db.prisma, filter, query.limit, after));
  };
}
