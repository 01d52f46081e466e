import type { Request, Response } from "express";
import { GatewayError } from "@gateway/contracts";
import type { ControlPlaneServices } from "../services.ts";
import { vendorUsageReport } from "../usage/vendor-usage-report.ts";
import { parseInput } from "../vendors/parse-input.ts";
import { usageReportQuerySchema } from "../vendors/report-schemas.ts";
import { vendorOf } from "../vendors/vendor-auth.ts";

const DEFAULT_WINDOW_MS = 30 * 86_400_000;
/** The earliest instant a window may start at: Postgres has no year 0. */
const EARLIEST = Date.parse("0001-01-01T00:00:00Z");

/**
 * GET /api/usage: the vendor's whole consumption in `[from, to)` grouped by day, model, key or
 * server option (scope usage:read). Defaults: `to` now, `from` 30 days before `to`.
 */
export function usageReportRoute(services: ControlPlaneServices) {
  return async (request: Request, response: Response): Promise<void> => {
    const query = parseInput(usageReportQuerySchema, request.query, "query");
    const to = query.to ?? new Date();
    const from = query.from ?? new Date(Math.max(to.getTime() - DEFAULT_WINDOW_MS, EARLIEST));
    if (from > to) throw new GatewayError("invalid_body", "from: must not be after to", { param: "from" });
    response.json(await vendorUsageReport(services.db.prisma, { vendorId: vendorOf(request).vendorId, from, to, groupBy: query.group_by }));
  };
}
