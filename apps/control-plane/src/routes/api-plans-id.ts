import type { Request, Response } from "express";
import type { ControlPlaneServices } from "../services.ts";
import { findVendorPlan } from "../customers/customer-service.ts";
import { toPlanObject } from "../customers/plan-service.ts";
import { vendorOf } from "../vendors/vendor-auth.ts";

/** GET /api/plans/{id} (scope customers:read, as the list): another vendor's plan is a 404 like a missing one. */
export function getPlanRoute(services: ControlPlaneServices) {
  return async (request: Request<{ id: string }>, response: Response): Promise<void> => {
    response.json(toPlanObject(await findVendorPlan(services.db.prisma, vendorOf(request).vendorId, request.params.id, "id")));
  };
}
