import { formatUsd, newId } from "@gateway/contracts";
import type { Customer, PrismaClient } from "@gateway/db";
import type { Logger } from "@gateway/logger";
import type Stripe from "stripe";
import { walletBalanceNano, type WalletTarget } from "./credit-wallet.ts";
import { creditAutoTopUp, type StripeEventContext } from "./stripe-events.ts";
import { nanoToCents } from "./wallet-schemas.ts";

export interface AutoTopUpObject {
  object: "auto_top_up";
  customer_id: string;
  enabled: boolean;
  below: string | null;
  amount: string | null;
  /** A card saved by an earlier checkout: without one nothing is charged. */
  payment_method_saved: boolean;
}

export function presentAutoTopUp(customer: Customer): AutoTopUpObject {
  const enabled = customer.autoTopUpBelowNano !== null && customer.autoTopUpAmountNano !== null;
  return {
    object: "auto_top_up",
    customer_id: customer.id,
    enabled,
    below: customer.autoTopUpBelowNano === null ? null : formatUsd(customer.autoTopUpBelowNano),
    amount: customer.autoTopUpAmountNano === null ? null : formatUsd(customer.autoTopUpAmountNano),
    payment_method_saved: customer.stripeCustomerId !== null && customer.stripePaymentMethodId !== null,
  };
}

export type AutoTopUpOutcome = "credited" | "pending" | "failed" | "not_needed" | "not_configured" | "in_progress";

export interface AutoTopUpContext extends Omit<StripeEventContext, "stripe"> {
  stripe: Stripe | null;
  logger: Logger;
}

/** How long one customer's top-up holds its lock: past any Stripe call's timeout and retries. */
const LOCK_MS = 120_000;

/**
 * When the customer's balance is below its `auto_top_up.below`, charges `amount` to the card its
 * last checkout saved: an off-session PaymentIntent confirmed at once, credited when it succeeded
 * (kind `auto_top_up`, once per PaymentIntent, with its Payment row; a PaymentIntent that needs
 * more time is recorded pending and credited by its `payment_intent.succeeded` webhook instead, one
 * that failed is recorded failed). One attempt per crossing: a Redis lock keeps
 * concurrent callers out, and Stripe's idempotency key is tied to the wallet's latest entry, so a
 * retry before the balance was refilled cannot charge twice.
 */
export async function runAutoTopUp(context: AutoTopUpContext, customerId: string): Promise<AutoTopUpOutcome> {
  const { prisma, target, stripe, logger } = context;
  const customer = await prisma.customer.findUnique({ where: { id: customerId } });
  if (!customer || !stripe || customer.autoTopUpBelowNano === null || customer.autoTopUpAmountNano === null) return "not_configured";
  if (!customer.stripeCustomerId || !customer.stripePaymentMethodId) return "not_configured";
  if ((await walletBalanceNano(target, customerId)) >= customer.autoTopUpBelowNano) return "not_needed";
  const lock = `${target.prefix}:wallet-auto-top-up:${customerId}`;
  if ((await target.redis.set(lock, "1", "PX", LOCK_MS, "NX")) !== "OK") return "in_progress";
  try {
    const latest = await prisma.walletEntry.findFirst({ where: { customerId }, orderBy: [{ createdAt: "desc" }, { id: "desc" }], select: { id: true } });
    let intent: Stripe.PaymentIntent;
    try {
      intent = await stripe.paymentIntents.create(
        {
          amount: nanoToCents(customer.autoTopUpAmountNano),
          currency: "usd",
          customer: customer.stripeCustomerId,
          payment_method: customer.stripePaymentMethodId,
          off_session: true,
          confirm: true,
          description: "Wallet auto top-up",
          metadata: { customer_id: customerId, kind: "auto_top_up" },
        },
        { idempotencyKey: `auto-top-up:${customerId}:${latest?.id ?? "first"}` },
      );
    } catch (error) {
      logger.warn({ customerId, err: (error as Error).message }, "auto top-up charge failed");
      return "failed";
    }
    if (intent.status !== "succeeded") {
      // In the customer's payments as it stands: pending (its webhook credits it) or failed.
      const status = intent.status === "processing" ? "pending" : "failed";
      await prisma.$executeRaw`
        INSERT INTO payments (id, customer_id, amount_nano, status, stripe_session_id)
        VALUES (${newId("pay")}, ${customerId}, ${customer.autoTopUpAmountNano}, ${status}, ${intent.id})
        ON CONFLICT (stripe_session_id) DO NOTHING`;
      return status;
    }
    await creditAutoTopUp(context, customerId, intent.id, BigInt(intent.amount_received || intent.amount) * 10_000_000n);
    return "credited";
  } finally {
    await target.redis.del(lock).catch(() => undefined);
  }
}

export async function setAutoTopUp(prisma: PrismaClient, customer: Customer, setting: { belowNano: bigint; amountNano: bigint } | null): Promise<Customer> {
  return prisma.customer.update({
    where: { id: customer.id },
    data: { autoTopUpBelowNano: setting?.belowNano ?? null, autoTopUpAmountNano: setting?.amountNano ?? null },
  });
}

export type { WalletTarget };
