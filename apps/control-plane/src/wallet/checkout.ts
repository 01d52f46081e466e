import { formatUsd, parseUsdToNano, newId } from "@gateway/contracts";
import type { Customer, PrismaClient } from "@gateway/db";
import type Stripe from "stripe";
import { stripeUnavailable } from "./wallet-errors.ts";

import { nanoToCents } from "./wallet-schemas.ts";

export interface CheckoutInput {
  amount: string;
  success_url: string;
  cancel_url: string;
}

export interface CheckoutSessionObject {
  id: string;
  object: "checkout_session";
  url: string;
  payment_id: string;
  amount: string;
}

/**
 * A Stripe Checkout Session in payment mode for `amount` USD (in cents), the customer's id in its
 * metadata, the card saved for later off-session charges (`setup_future_usage`: auto top-up), and
 * a pending Payment row keyed by the session. Nothing is credited here: only the signed
 * `checkout.session.completed` webhook credits (stripe-events.ts).
 */
export async function createCheckoutSession(prisma: PrismaClient, stripe: Stripe, customer: Customer, input: CheckoutInput, idempotencyKey?: string): Promise<CheckoutSessionObject> {
  const amountNano = parseUsdToNano(input.amount);
  const paymentId = newId("pay");
  let session: Stripe.Checkout.Session;
  try {
    session = await stripe.checkout.sessions.create(
      {
        mode: "payment",
        line_items: [{ quantity: 1, price_data: { currency: "usd", unit_amount: nanoToCents(amountNano), product_data: { name: "Wallet credit" } } }],
        success_url: input.success_url,
        cancel_url: input.cancel_url,
        client_reference_id: customer.id,
        metadata: { customer_id: customer.id, payment_id: paymentId },
        payment_intent_data: { setup_future_usage: "off_session", metadata: { customer_id: customer.id, payment_id: paymentId } },
        ...(customer.stripeCustomerId ? { customer: customer.stripeCustomerId } : { customer_creation: "always" as const }),
        ...(customer.email && !customer.stripeCustomerId ? { customer_email: customer.email } : {}),
      },
      idempotencyKey ? { idempotencyKey: `checkout:${customer.id}:${idempotencyKey}` } : undefined,
    );
  } catch (error) {
    throw stripeUnavailable(error);
  }
  if (!session.url) throw stripeUnavailable(new Error("Stripe returned a Checkout Session without a url"));
  const payment = await prisma.payment.upsert({
    where: { stripeSessionId: session.id },
    create: { id: paymentId, customerId: customer.id, amountNano, status: "pending", stripeSessionId: session.id },
    update: {},
  });
  return { id: session.id, object: "checkout_session", url: session.url, payment_id: payment.id, amount: formatUsd(payment.amountNano) };
}
