import type { Request, Response } from "express";
import { GatewayError } from "@gateway/contracts";
import { Prisma } from "@gateway/db";
import type { ControlPlaneServices } from "../services.ts";
import { toReportRow, usageReportQuery, type GroupRow } from "../usage/vendor-usage-report.ts";
import { parseInput } from "../vendors/parse-input.ts";
import { usageReportQuerySchema, usageReportRowSchema } from "../vendors/report-schemas.ts";
import { vendorOf } from "../vendors/vendor-auth.ts";
import { exportFilename, streamCsv } from "./api-usage-csv-writer.ts";

/** As GET /api/usage: `to` now, `from` 30 days before it. */
const DEFAULT_WINDOW_MS = 30 * 86_400_000;
const EARLIEST = Date.parse("0001-01-01T00:00:00Z");

/** The report's figure columns in the JSON rows' order (requests ... cost, cost_nano). */
const FIGURES = Object.keys(usageReportRowSchema.shape).filter((field) => field !== "group" && field !== "name" && field !== "prefix");

/**
 * GET /api/usage.csv (scope usage:read): GET /api/usage's rows as CSV, same query (`from`, `to`,
 * `group_by`) and the same statement, so the rows (and their sum) equal the JSON's `data` (and
 * `totals`). Columns: `group` (with `name`, `prefix` for group_by=key), then the figures.
 */
export function usageCsvRoute(services: ControlPlaneServices) {
  return async (request: Request, response: Response): Promise<void> => {
    const query = parseInput(usageReportQuerySchema, request.query, "query");
    const to = query.to ?? new Date();
    const from = query.from ?? new Date(Math.max(to.getTime() - DEFAULT_WINDOW_MS, EARLIEST));
    if (from > to) throw new GatewayError("invalid_body", "from: must not be after to", { param: "from" });
    const columns = ["group", ...(query.group_by === "key" ? ["name", "prefix"] : []), ...FIGURES];
    const report = usageReportQuery({ vendorId: vendorOf(request).vendorId, from, to, groupBy: query.group_by });
    // The JSON sorts its rows by `group` (code points); "C" collation orders the same way.
    const ordered = report === null ? Prisma.sql`SELECT NULL AS grp WHERE false` : Prisma.sql`SELECT * FROM (${report}) AS report ORDER BY report.grp::text COLLATE "C"`;
    await streamCsv<GroupRow>(services.db.prisma, request, response, {
      filename: exportFilename(`usage-by-${query.group_by}`, from, to),
      columns,
      query: ordered,
      toCells: (row) => {
        const object = toReportRow(row) as Record<string, unknown>;
        return columns.map((column) => object[column]);
      },
    });
  };
}
