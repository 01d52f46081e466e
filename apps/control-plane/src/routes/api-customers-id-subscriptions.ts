import type { Request, Response } from "express";
import type { ControlPlaneServices } from "../services.ts";
import { subscriptionListQuerySchema } from "../customers/customer-schemas.ts";
import { findVendorCustomer, toSubscriptionObject } from "../customers/customer-service.ts";
import { NEWEST_FIRST, newestFirstAfter, newestFirstPosition, newestFirstPositionOf, readPageRequest, toList } from "../vendors/pagination.ts";
import { parseInput } from "../vendors/parse-input.ts";
import { vendorOf } from "../vendors/vendor-auth.ts";

const subscriptionPosition = newestFirstPosition("sub");

/** GET /api/customers/{id}/subscriptions (scope customers:read): the customer's subscriptions, newest first, the active one and those that ended. */
export function listSubscriptionsRoute(services: ControlPlaneServices) {
  const { prisma } = services.db;
  return async (request: Request<{ id: string }>, response: Response): Promise<void> => {
    const customer = await findVendorCustomer(prisma, vendorOf(request).vendorId, request.params.id);
    const { limit, after } = readPageRequest(request.query, subscriptionPosition);
    const { status } = parseInput(subscriptionListQuerySchema.omit({ limit: true, cursor: true }), request.query, "query");
    const rows = await prisma.subscription.findMany({
      where: { customerId: customer.id, ...(status ? { status } : {}), ...newestFirstAfter(after) },
      orderBy: NEWEST_FIRST,
      take: limit + 1,
    });
    response.json(toList(rows, limit, toSubscriptionObject, newestFirstPositionOf));
  };
}
