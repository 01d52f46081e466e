import type { Request, Response } from "express";
import { z } from "zod";
import type { ControlPlaneServices } from "../services.ts";
import { findVendorCustomer } from "../wallet/vendor-customer.ts";
import { toPaymentObject } from "../wallet/wallet-objects.ts";
import { readPageRequest, toList } from "../vendors/pagination.ts";
import { vendorOf } from "../vendors/vendor-auth.ts";

// A cursor is the client's text: a date Postgres cannot store (year 0000) must be a 400, not a 500.
const paymentPosition = z.object({
  createdAt: z.iso.datetime().refine((value) => Number(value.slice(0, 4)) >= 1970, "out of range"),
  id: z.string().startsWith("pay_"),
});

/** GET /api/customers/{id}/payments (scope customers:read): checkout payments and auto top-up charges, newest first. */
export function listPaymentsRoute(services: ControlPlaneServices) {
  const { prisma } = services.db;
  return async (request: Request<{ id: string }>, response: Response): Promise<void> => {
    const customer = await findVendorCustomer(prisma, vendorOf(request).vendorId, request.params.id);
    const { limit, after } = readPageRequest(request.query, paymentPosition);
    const createdAt = after && new Date(after.createdAt);
    const rows = await prisma.payment.findMany({
      where: { customerId: customer.id, ...(createdAt && after ? { OR: [{ createdAt: { lt: createdAt } }, { createdAt, id: { lt: after.id } }] } : {}) },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: limit + 1,
    });
    response.json(toList(rows, limit, toPaymentObject, (row) => ({ createdAt: row.createdAt.toISOString(), id: row.id })));
  };
}
