import { formatUsd } from "@gateway/contracts";
import type { Payment } from "@gateway/db";
import { z } from "zod";
import { isoDateTime, listOf } from "../vendors/api-schemas.ts";
import type { WalletEntryRow } from "./credit-wallet.ts";

/** The wallet's objects in the vendor API (contract section 19): entries and payments, USD as decimal strings. */
const usd = (description: string) => z.string().describe(`${description} USD, 6 decimals.`);

export const walletEntrySchema = z.object({
  id: z.string().describe("we_..."),
  object: z.literal("wallet_entry"),
  customer_id: z.string(),
  kind: z.enum(["grant", "payment", "code", "auto_top_up", "plan"]).describe("`plan`: a plan's price for one period, a debit."),
  amount: usd("Credited (negative: debited)."),
  reason: z.string(),
  source_id: z.string().nullable().describe("What it came from, credited or charged once: a Stripe event or PaymentIntent, a code, `sub:<id>:<period start>`; null for grants."),
  created_at: isoDateTime,
});
export type WalletEntryObject = z.output<typeof walletEntrySchema>;

/** A grant's answer: the entry and the balance right after it. */
export const grantedWalletEntrySchema = walletEntrySchema.extend({ balance: usd("The customer's balance after it.") });

export const paymentSchema = z.object({
  id: z.string().describe("pay_..."),
  object: z.literal("payment"),
  customer_id: z.string(),
  kind: z.enum(["checkout", "auto_top_up"]).describe("A Stripe Checkout payment, or an off-session charge of the saved card (auto top-up)."),
  amount: usd("Paid (or to be paid, while pending)."),
  status: z.enum(["pending", "succeeded", "failed"]),
  stripe_id: z.string().describe("The Checkout Session (`cs_...`) or the PaymentIntent (`pi_...`)."),
  created_at: isoDateTime,
  completed_at: isoDateTime.nullable(),
});
export type PaymentObject = z.output<typeof paymentSchema>;

export const walletEntryListSchema = listOf(walletEntrySchema);
export const paymentListSchema = listOf(paymentSchema);

export function toWalletEntryObject(row: WalletEntryRow): WalletEntryObject {
  return {
    id: row.id,
    object: "wallet_entry",
    customer_id: row.customer_id,
    kind: walletEntrySchema.shape.kind.safeParse(row.kind).data ?? "grant",
    amount: formatUsd(row.amount_nano),
    reason: row.reason,
    source_id: row.source_id,
    created_at: row.created_at.toISOString(),
  };
}

/** An auto top-up's Payment row is keyed by its PaymentIntent (`pi_...`) where a checkout's is keyed by its session. */
export function isAutoTopUpPayment(row: Pick<Payment, "stripeSessionId">): boolean {
  return row.stripeSessionId.startsWith("pi_");
}

export function toPaymentObject(row: Payment): PaymentObject {
  return {
    id: row.id,
    object: "payment",
    customer_id: row.customerId,
    kind: isAutoTopUpPayment(row) ? "auto_top_up" : "checkout",
    amount: formatUsd(row.amountNano),
    status: row.status === "succeeded" || row.status === "failed" ? row.status : "pending",
    stripe_id: row.stripeSessionId,
    created_at: row.createdAt.toISOString(),
    completed_at: row.completedAt?.toISOString() ?? null,
  };
}
