import type { Request, Response } from "express";
import { GatewayError } from "@gateway/contracts";
import type { ControlPlaneServices } from "../services.ts";
import { requestLogQuery, toRequestObject, type LedgerRow } from "../usage/request-log.ts";
import { parseInput } from "../vendors/parse-input.ts";
import { requestLogQuerySchema, requestSchema } from "../vendors/report-schemas.ts";
import { vendorOf } from "../vendors/vendor-auth.ts";
import { exportFilename, streamCsv } from "./api-usage-csv-writer.ts";

/** Every field of a GET /api/requests row, in its order; `attempts` is its JSON text. */
const COLUMNS = Object.keys(requestSchema.shape);
const csvQuerySchema = requestLogQuerySchema.omit({ limit: true, cursor: true });
/** No page size: the cursor reads every row the filters select. */
const ALL_ROWS = Number.MAX_SAFE_INTEGER - 1;

/**
 * GET /api/requests.csv (scope usage:read): every request GET /api/requests would list for the same
 * filters (`id`, `key_id`, `model`, `status`, `from`, `to`), newest first, all pages in one file,
 * from the same statement and the same row mapping.
 */
export function requestsCsvRoute(services: ControlPlaneServices) {
  return async (request: Request, response: Response): Promise<void> => {
    const query = parseInput(csvQuerySchema, request.query, "query");
    if (query.from !== undefined && query.to !== undefined && query.from > query.to) {
      throw new GatewayError("invalid_body", "from: must not be after to", { param: "from" });
    }
    const filter = { vendorId: vendorOf(request).vendorId, id: query.id, keyId: query.key_id, model: query.model, status: query.status, from: query.from, to: query.to };
    await streamCsv<LedgerRow>(services.db.prisma, request, response, {
      filename: exportFilename("requests", query.from, query.to),
      columns: COLUMNS,
      query: requestLogQuery(filter, ALL_ROWS, undefined),
      toCells: (row) => {
        const object = toRequestObject(row) as Record<string, unknown>;
        return COLUMNS.map((column) => object[column]);
      },
    });
  };
}
