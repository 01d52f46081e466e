import type { Request, Response } from "express";
import { parseUsdToNano } from "@gateway/contracts";
import type { ControlPlaneServices } from "../services.ts";
import { readIdempotencyKey } from "../vendors/idempotency.ts";
import { parseInput } from "../vendors/parse-input.ts";
import { vendorOf } from "../vendors/vendor-auth.ts";
import { presentAutoTopUp, setAutoTopUp } from "../wallet/auto-top-up.ts";
import { createCheckoutSession } from "../wallet/checkout.ts";
import type { Stripe } from "../wallet/stripe-client.ts";
import { findVendorCustomer } from "../wallet/vendor-customer.ts";
import { paymentsNotConfigured } from "../wallet/wallet-errors.ts";
import { autoTopUpBodySchema, checkoutBodySchema } from "../wallet/wallet-schemas.ts";

/**
 * POST /api/customers/{id}/checkout-sessions (scope customers:write): `{"amount","success_url",
 * "cancel_url"}` -> 201 `{"id","object","url","payment_id","amount"}`, a Stripe Checkout Session
 * the customer pays at `url`. 503 `payments_not_configured` without STRIPE_SECRET_KEY. An
 * `Idempotency-Key` is passed on to Stripe, so a retry returns the same session.
 */
export function createCheckoutSessionRoute(services: ControlPlaneServices, stripe: Stripe | null) {
  return async (request: Request<{ id: string }>, response: Response): Promise<void> => {
    const customer = await findVendorCustomer(services.db.prisma, vendorOf(request).vendorId, request.params.id);
    const idempotencyKey = readIdempotencyKey(request.get("idempotency-key"));
    const body = parseInput(checkoutBodySchema, request.body, "body");
    if (!stripe) throw paymentsNotConfigured("STRIPE_SECRET_KEY");
    response.status(201).json(await createCheckoutSession(services.db.prisma, stripe, customer, body, idempotencyKey));
  };
}

/**
 * POST /api/customers/{id}/auto-top-up (scope customers:write): `{"below","amount"}` (USD) turns
 * it on, `{"below":null,"amount":null}` off -> the setting, and whether a checkout saved a card.
 */
export function setAutoTopUpRoute(services: ControlPlaneServices) {
  return async (request: Request<{ id: string }>, response: Response): Promise<void> => {
    const customer = await findVendorCustomer(services.db.prisma, vendorOf(request).vendorId, request.params.id);
    const body = parseInput(autoTopUpBodySchema, request.body, "body");
    const setting = body.below === null || body.amount === null ? null : { belowNano: parseUsdToNano(body.below), amountNano: parseUsdToNano(body.amount) };
    response.json(presentAutoTopUp(await setAutoTopUp(services.db.prisma, customer, setting)));
  };
}

/** GET /api/customers/{id}/auto-top-up (scope customers:read). */
export function getAutoTopUpRoute(services: ControlPlaneServices) {
  return async (request: Request<{ id: string }>, response: Response): Promise<void> => {
    response.json(presentAutoTopUp(await findVendorCustomer(services.db.prisma, vendorOf(request).vendorId, request.params.id)));
  };
}
