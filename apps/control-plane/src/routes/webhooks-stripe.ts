import type { NextFunction, Request, Response } from "express";
import type { ControlPlaneServices } from "../services.ts";
import { stripeWebhooks } from "../wallet/stripe-client.ts";
import { handleStripeEvent, type StripeEventContext } from "../wallet/stripe-events.ts";
import { invalidSignature, paymentsNotConfigured } from "../wallet/wallet-errors.ts";

/**
 * POST /webhooks/stripe: Stripe's events, on the gateway's one address (the proxy relays
 * `/webhooks/*` with the body byte for byte). The raw body and the `Stripe-Signature` header are
 * checked with the SDK's `constructEvent` and STRIPE_WEBHOOK_SECRET (default tolerance: 5 minutes);
 * a missing or bad signature is a 400 and nothing is read from the body. A verified event is
 * handled (each payment credited once per event id, stripe-events.ts) and answered 200
 * `{"received":true,"outcome"}`; a failure is a 5xx so Stripe retries it.
 */
export function stripeWebhookRoute(services: ControlPlaneServices, context: StripeEventContext) {
  const secret = services.config.STRIPE_WEBHOOK_SECRET;
  return async (request: Request, response: Response): Promise<void> => {
    if (!secret) throw paymentsNotConfigured("STRIPE_WEBHOOK_SECRET");
    const signature = request.headers["stripe-signature"];
    const body: unknown = request.body;
    if (typeof signature !== "string" || !Buffer.isBuffer(body)) throw invalidSignature();
    let event;
    try {
      event = stripeWebhooks.constructEvent(body, signature, secret);
    } catch (error) {
      throw invalidSignature(error);
    }
    const outcome = await handleStripeEvent(context, event);
    response.json({ received: true, outcome });
  };
}

/** Before the body is read: the endpoint is configured and the request is signed at all. */
export function stripeWebhookPrecheck(services: ControlPlaneServices) {
  const secret = services.config.STRIPE_WEBHOOK_SECRET;
  return (request: Request, _response: Response, next: NextFunction): void => {
    if (!secret) throw paymentsNotConfigured("STRIPE_WEBHOOK_SECRET");
    if (typeof request.headers["stripe-signature"] !== "string") throw invalidSignature();
    next();
  };
}
