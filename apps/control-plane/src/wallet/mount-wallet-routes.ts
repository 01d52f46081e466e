import express, { Router, type Express } from "express";
import { formatUsd } from "@gateway/contracts";
import { jsonBody } from "@gateway/http";
import type { ControlPlaneServices } from "../services.ts";
import { createCheckoutSessionRoute, getAutoTopUpRoute, setAutoTopUpRoute } from "../routes/api-checkout-sessions.ts";
import { grantCreditRoute } from "../routes/api-credits.ts";
import { listPaymentsRoute } from "../routes/api-customers-id-payments.ts";
import { listWalletEntriesRoute } from "../routes/api-customers-id-wallet-entries.ts";
import { createRedemptionCodesRoute, listRedemptionCodesRoute } from "../routes/api-redemption-codes.ts";
import { internalRedeemRoute, internalToken } from "../routes/internal-redeem.ts";
import { stripeWebhookPrecheck, stripeWebhookRoute } from "../routes/webhooks-stripe.ts";
import { requireScope, vendorAuth } from "../vendors/vendor-auth.ts";
import { emitEvent } from "../webhooks/emit.ts";
import { runAutoTopUp, type AutoTopUpContext, type AutoTopUpOutcome } from "./auto-top-up.ts";
import { createStripeClient } from "./stripe-client.ts";
import type { StripeEventContext } from "./stripe-events.ts";

/** Stripe webhook bodies: the SDK signs at most a few kilobytes; far more than any event. */
const WEBHOOK_BODY_LIMIT = "1mb";

export interface Wallet {
  /** Charges a customer's saved card when its balance is below its auto top-up threshold (auto-top-up.ts). */
  runAutoTopUp(customerId: string): Promise<AutoTopUpOutcome>;
}

/**
 * What crediting needs, built once per control plane: the database, the Redis counters, the Stripe
 * SDK (null without STRIPE_SECRET_KEY) and `payment.succeeded` for the vendor's webhooks, queued
 * in the crediting transaction.
 */
export function createWalletContext(services: ControlPlaneServices): StripeEventContext & AutoTopUpContext {
  return {
    prisma: services.db.prisma,
    target: { redis: services.redis, prefix: services.config.REDIS_PREFIX },
    logger: services.logger,
    stripe: createStripeClient(services.config),
    async onCredited(tx, credit) {
      await emitEvent(tx, {
        vendorId: credit.vendorId,
        type: "payment.succeeded",
        eventId: `payment.succeeded:${credit.paymentId}`,
        data: { customer_id: credit.customerId, payment_id: credit.paymentId, amount: formatUsd(credit.amountNano), kind: credit.kind },
      });
    },
  };
}

/**
 * Money in (contract section 19, issue 38): grants, redemption codes, Stripe Checkout and its
 * webhook, auto top-up. Vendor routes under /api (token, then scope, then body), the proxy's
 * /internal/redeem, and /webhooks/stripe with its raw body (the signature covers the exact bytes).
 */
export function mountWalletRoutes(app: Express, services: ControlPlaneServices): Wallet {
  const context = createWalletContext(services);
  const { stripe } = context;
  const body = jsonBody(services.config.BODY_LIMIT_BYTES);
  const authenticated = vendorAuth(services);
  const router = Router();
  router.post("/customers/:id/credits", authenticated, requireScope("customers:write"), body, grantCreditRoute(services));
  router.get("/customers/:id/wallet/entries", authenticated, requireScope("customers:read"), listWalletEntriesRoute(services));
  router.get("/customers/:id/payments", authenticated, requireScope("customers:read"), listPaymentsRoute(services));
  router.post("/customers/:id/checkout-sessions", authenticated, requireScope("customers:write"), body, createCheckoutSessionRoute(services, stripe));
  router.post("/customers/:id/auto-top-up", authenticated, requireScope("customers:write"), body, setAutoTopUpRoute(services));
  router.get("/customers/:id/auto-top-up", authenticated, requireScope("customers:read"), getAutoTopUpRoute(services));
  router.post("/redemption-codes", authenticated, requireScope("customers:write"), body, createRedemptionCodesRoute(services));
  router.get("/redemption-codes", authenticated, requireScope("customers:read"), listRedemptionCodesRoute(services));
  app.use("/api", router);
  app.post("/internal/redeem", internalToken(services), body, internalRedeemRoute(services));
  app.post("/webhooks/stripe", stripeWebhookPrecheck(services), express.raw({ type: () => true, limit: WEBHOOK_BODY_LIMIT }), stripeWebhookRoute(services, context));
  return { runAutoTopUp: (customerId) => runAutoTopUp(context, customerId) };
}
