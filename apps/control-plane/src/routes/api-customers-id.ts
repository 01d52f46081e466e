import type { Request, Response } from "express";
import type { ControlPlaneServices } from "../services.ts";
import { createSubscriptionBodySchema, updateCustomerBodySchema } from "../customers/customer-schemas.ts";
import { findVendorCustomer, presentCustomer, toSubscriptionObject, updateCustomer } from "../customers/customer-service.ts";
import { cancelSubscription, subscribe } from "../customers/plan-service.ts";
import { parseInput } from "../vendors/parse-input.ts";
import { actorOf, vendorOf } from "../vendors/vendor-auth.ts";
import { customerStores } from "./api-customers.ts";

/** GET /api/customers/{id} (scope customers:read). */
export function getCustomerRoute(services: ControlPlaneServices) {
  return async (request: Request<{ id: string }>, response: Response): Promise<void> => {
    const row = await findVendorCustomer(services.db.prisma, vendorOf(request).vendorId, request.params.id);
    response.json(await presentCustomer(services.db.prisma, row));
  };
}

/**
 * PATCH /api/customers/{id} (scope customers:write): name, email, metadata, budget, status. A
 * disabled customer's keys get 401 key_disabled on every proxy within a second.
 */
export function updateCustomerRoute(services: ControlPlaneServices) {
  return async (request: Request<{ id: string }>, response: Response): Promise<void> => {
    const body = parseInput(updateCustomerBodySchema, request.body, "body");
    const row = await updateCustomer(services.db.prisma, customerStores(services), actorOf(request), request.params.id, body);
    response.json(await presentCustomer(services.db.prisma, row));
  };
}

/** POST /api/customers/{id}/subscriptions {"plan_id"} (scope plans:write): 201 with the subscription. */
export function createSubscriptionRoute(services: ControlPlaneServices) {
  return async (request: Request<{ id: string }>, response: Response): Promise<void> => {
    const { plan_id: planId } = parseInput(createSubscriptionBodySchema, request.body, "body");
    const row = await subscribe(services.db.prisma, customerStores(services), actorOf(request), request.params.id, planId);
    response.status(201).json(toSubscriptionObject(row));
  };
}

/** DELETE /api/customers/{id}/subscriptions/{sub_id} (scope plans:write): 200 with the subscription, `status: "canceled"`. */
export function cancelSubscriptionRoute(services: ControlPlaneServices) {
  return async (request: Request<{ id: string; sub_id: string }>, response: Response): Promise<void> => {
    const row = await cancelSubscription(services.db.prisma, customerStores(services), actorOf(request), request.params.id, request.params.sub_id);
    response.json(toSubscriptionObject(row));
  };
}
