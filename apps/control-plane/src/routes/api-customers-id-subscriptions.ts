import type { Request, Response } from "express";
import { z } from "zod";
import type { ControlPlaneServices } from "../services.ts";
import { subscriptionListQuerySchema } from "../customers/customer-schemas.ts";
import { findVendorCustomer, toSubscriptionObject } from "../customers/customer-service.ts";
import { readPageRequest, toList } from "../vendors/pagination.ts";
import { parseInput } from "../vendors/parse-input.ts";
import { vendorOf } from "../vendors/vendor-auth.ts";

// A cursor is the client's text: a date Postgres cannot store (year 0000) must be a 400, not a 500.
const subscriptionPosition = z.object({
  createdAt: z.iso.datetime().refine((value) => Number(value.slice(0, 4)) >= 1970, "out of range"),
  id: z.string().startsWith("sub_"),
});

/** GET /api/customers/{id}/subscriptions (scope customers:read): the customer's subscriptions, newest first, the active one and those that ended. */
export function listSubscriptionsRoute(services: ControlPlaneServices) {
  const { prisma } = services.db;
  return async (request: Request<{ id: string }>, response: Response): Promise<void> => {
    const customer = await findVendorCustomer(prisma, vendorOf(request).vendorId, request.params.id);
    const { limit, after } = readPageRequest(request.query, subscriptionPosition);
    const { status } = parseInput(subscriptionListQuerySchema.omit({ limit: true, cursor: true }), request.query, "query");
    const createdAt = after && new Date(after.createdAt);
    const rows = await prisma.subscription.findMany({
      where: { customerId: customer.id, ...(status ? { status } : {}), ...(createdAt && after ? { OR: [{ createdAt: { lt: createdAt } }, { createdAt, id: { lt: after.id } }] } : {}) },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: limit + 1,
    });
    response.json(toList(rows, limit, toSubscriptionObject, (row) => ({ createdAt: row.createdAt.toISOString(), id: row.id })));
  };
}
