import type { Request, Response } from "express";
import type { ControlPlaneServices } from "../services.ts";
import { findVendorCustomer } from "../wallet/vendor-customer.ts";
import { toPaymentObject } from "../wallet/wallet-objects.ts";
import { NEWEST_FIRST, newestFirstAfter, newestFirstPosition, newestFirstPositionOf, readPageRequest, toList } from "../vendors/pagination.ts";
import { vendorOf } from "../vendors/vendor-auth.ts";

const paymentPosition = newestFirstPosition("pay");

/** GET /api/customers/{id}/payments (scope customers:read): checkout payments and auto top-up charges, newest first. */
export function listPaymentsRoute(services: ControlPlaneServices) {
  const { prisma } = services.db;
  return async (request: Request<{ id: string }>, response: Response): Promise<void> => {
    const customer = await findVendorCustomer(prisma, vendorOf(request).vendorId, request.params.id);
    const { limit, after } = readPageRequest(request.query, paymentPosition);
    const rows = await prisma.payment.findMany({
      where: { customerId: customer.id, ...newestFirstAfter(after) },
      orderBy: NEWEST_FIRST,
      take: limit + 1,
    });
    response.json(toList(rows, limit, toPaymentObject, newestFirstPositionOf));
  };
}
