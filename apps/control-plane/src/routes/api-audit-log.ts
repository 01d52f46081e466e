import type { Request, Response } from "express";
import type { ControlPlaneServices } from "../services.ts";
import { auditLog, auditPositionSchema } from "../vendors/audit-log.ts";
import { readPageRequest } from "../vendors/pagination.ts";
import { vendorOf } from "../vendors/vendor-auth.ts";

/** GET /api/audit-log: the vendor's own key changes, newest first (any valid vendor token). */
export function auditLogRoute(services: ControlPlaneServices) {
  return async (request: Request, response: Response): Promise<void> => {
    const { limit, after } = readPageRequest(request.query, auditPositionSchema);
    response.json(await auditLog(services.db.prisma, vendorOf(request).vendorId, limit, after));
  };
}
