import { formatUsd, newId } from "@gateway/contracts";
import { Prisma, type PrismaClient } from "@gateway/db";
import type Stripe from "stripe";
import type { Logger } from "@gateway/logger";
import { creditWallet, type WalletTarget } from "./credit-wallet.ts";

import { centsToNano } from "./wallet-schemas.ts";

export interface PaymentCredit {
  customerId: string;
  vendorId: string;
  paymentId: string;
  amountNano: bigint;
  kind: "payment" | "auto_top_up";
}

export type StripeEventOutcome = "credited" | "duplicate" | "ignored";

export interface StripeEventContext {
  prisma: PrismaClient;
  target: WalletTarget;
  logger: Logger;
  /** The SDK when STRIPE_SECRET_KEY is set: used to read the saved card after a checkout (best effort). */
  stripe: Stripe | null;
  /**
   * Called inside the crediting transaction, before the credit itself (webhooks to the vendor:
   * `payment.succeeded` commits with the credit, or not at all).
   */
  onCredited?: (tx: Prisma.TransactionClient, credit: PaymentCredit) => Promise<void>;
}

/** A rollback that is no failure: the event's credit already happened. */
class AlreadyCredited extends Error {}

/**
 * One verified Stripe event. `checkout.session.completed` (and `.async_payment_succeeded`) with
 * `payment_status: "paid"` credits `amount_total` to the customer named in the session's metadata,
 * exactly once: the wallet entry (kind `payment`, source = the event id) is unique, and the
 * session's Payment row takes the event id only while it has none, so a replay, a retry, five
 * concurrent deliveries or another event about the same session credit nothing more.
 * `payment_intent.succeeded` of an auto top-up credits it once per PaymentIntent (the same entry
 * the synchronous path writes). Other events are acknowledged and ignored.
 */
export async function handleStripeEvent(context: StripeEventContext, event: Stripe.Event): Promise<StripeEventOutcome> {
  switch (event.type) {
    case "checkout.session.completed":
    case "checkout.session.async_payment_succeeded":
      return creditCheckout(context, event.id, event.data.object);
    case "payment_intent.succeeded":
      return creditAutoTopUpIntent(context, event.data.object);
    default:
      return "ignored";
  }
}

async function creditCheckout(context: StripeEventContext, eventId: string, session: Stripe.Checkout.Session): Promise<StripeEventOutcome> {
  const customerId = session.metadata?.customer_id;
  if (session.mode !== "payment" || session.payment_status !== "paid" || !customerId || session.amount_total === null) return "ignored";
  const amountNano = centsToNano(session.amount_total);
  const customer = await context.prisma.customer.findUnique({ where: { id: customerId }, select: { id: true, vendorId: true } });
  if (!customer) {
    context.logger.warn({ eventId, sessionId: session.id, customerId }, "stripe checkout for an unknown customer: not credited");
    return "ignored";
  }
  let paymentId: string;
  try {
    paymentId = await context.prisma.$transaction(
      async (tx) => {
        // The session's Payment row first: its row lock orders concurrent deliveries, and the Redis
        // credit (creditWallet) comes last, when nothing can roll the transaction back but the commit.
        const now = new Date();
        const claimed = await tx.payment.updateMany({
          where: { stripeSessionId: session.id, stripeEventId: null },
          data: { status: "succeeded", stripeEventId: eventId, completedAt: now, amountNano },
        });
        let id: string;
        if (claimed.count === 1) id = (await tx.payment.findUniqueOrThrow({ where: { stripeSessionId: session.id }, select: { id: true } })).id;
        else if (await tx.payment.findUnique({ where: { stripeSessionId: session.id }, select: { id: true } })) throw new AlreadyCredited();
        else {
          // A session this gateway did not record (created elsewhere with our metadata): recorded now.
          id = newId("pay");
          await tx.payment.create({ data: { id, customerId, amountNano, status: "succeeded", stripeSessionId: session.id, stripeEventId: eventId, completedAt: now } });
        }
        await context.onCredited?.(tx, { customerId, vendorId: customer.vendorId, paymentId: id, amountNano, kind: "payment" });
        const entry = await creditWallet(tx, context.target, { customerId, kind: "payment", sourceId: eventId, amountNano, reason: `stripe checkout ${session.id}` });
        if (!entry) throw new AlreadyCredited();
        return id;
      },
      { maxWait: 10_000, timeout: 15_000 },
    );
  } catch (error) {
    // A concurrent delivery created the same unrecorded session's row first: it credits, this one does not.
    if (error instanceof AlreadyCredited || isUniqueViolation(error)) return "duplicate";
    throw error;
  }
  context.logger.info({ eventId, paymentId, sessionId: session.id, customerId, amount: formatUsd(amountNano) }, "stripe payment credited");
  await saveCard(context, customerId, session).catch((error: unknown) =>
    context.logger.warn({ err: (error as Error).message, customerId }, "could not save the checkout's payment method"),
  );
  return "credited";
}

/** The Stripe customer and the card of a checkout, kept for auto top-up (the PaymentIntent names the card). */
async function saveCard(context: StripeEventContext, customerId: string, session: Stripe.Checkout.Session): Promise<void> {
  const stripeCustomerId = typeof session.customer === "string" ? session.customer : (session.customer?.id ?? null);
  if (!stripeCustomerId) return;
  let paymentMethodId: string | null = null;
  const intent = session.payment_intent;
  if (intent && typeof intent !== "string") paymentMethodId = typeof intent.payment_method === "string" ? intent.payment_method : (intent.payment_method?.id ?? null);
  else if (typeof intent === "string" && context.stripe) {
    const read = await context.stripe.paymentIntents.retrieve(intent);
    paymentMethodId = typeof read.payment_method === "string" ? read.payment_method : (read.payment_method?.id ?? null);
  }
  await context.prisma.customer.update({
    where: { id: customerId },
    data: { stripeCustomerId, ...(paymentMethodId ? { stripePaymentMethodId: paymentMethodId } : {}) },
  });
}

async function creditAutoTopUpIntent(context: StripeEventContext, intent: Stripe.PaymentIntent): Promise<StripeEventOutcome> {
  const customerId = intent.metadata?.customer_id;
  if (intent.metadata?.kind !== "auto_top_up" || !customerId || intent.status !== "succeeded") return "ignored";
  return (await creditAutoTopUp(context, customerId, intent.id, centsToNano(intent.amount_received))) ? "credited" : "duplicate";
}

/**
 * Credits a succeeded auto top-up PaymentIntent once (kind `auto_top_up`, source = its id) and
 * marks its Payment row (keyed by the PaymentIntent; recorded pending by the charge, or new)
 * `succeeded`, both in one transaction: the synchronous charge and its `payment_intent.succeeded`
 * webhook race to it, and the loser (the entry already there) credits nothing and rolls back. False
 * when it already was.
 */
export async function creditAutoTopUp(context: Omit<StripeEventContext, "stripe">, customerId: string, intentId: string, amountNano: bigint): Promise<boolean> {
  const customer = await context.prisma.customer.findUnique({ where: { id: customerId }, select: { vendorId: true } });
  if (!customer) return false;
  const entry = await context.prisma.$transaction(
    async (tx) => {
      // The row the charge recorded while it was pending, else a new one (unique per PaymentIntent):
      // one statement, so a concurrent insert of the same row waits for it instead of failing.
      const [payment] = await tx.$queryRaw<{ id: string }[]>`
        INSERT INTO payments (id, customer_id, amount_nano, status, stripe_session_id, completed_at)
        VALUES (${newId("pay")}, ${customerId}, ${amountNano}, 'succeeded', ${intentId}, now())
        ON CONFLICT (stripe_session_id) DO UPDATE SET status = 'succeeded', amount_nano = EXCLUDED.amount_nano, completed_at = EXCLUDED.completed_at
        RETURNING id`;
      const paymentId = payment!.id;
      // The event before the credit: it rolls back with a credit that turns out to be a duplicate.
      await context.onCredited?.(tx, { customerId, vendorId: customer.vendorId, paymentId, amountNano, kind: "auto_top_up" });
      const credited = await creditWallet(tx, context.target, { customerId, kind: "auto_top_up", sourceId: intentId, amountNano, reason: `auto top-up ${intentId}` });
      if (!credited) throw new AlreadyCredited();
      return credited;
    },
    { maxWait: 10_000, timeout: 15_000 },
  ).catch((error: unknown) => {
    if (error instanceof AlreadyCredited) return null;
    throw error;
  });
  return entry !== null;
}

function isUniqueViolation(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002";
}
