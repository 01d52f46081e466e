import { formatUsd } from "@gateway/contracts";
import type { Customer, Plan, Prisma, Subscription } from "@gateway/db";
import { debitWallet, undoWalletDebit, type WalletEntryRow, type WalletTarget } from "../wallet/credit-wallet.ts";

/**
 * A plan's price, charged to the customer's wallet once per subscription period (contract section
 * 19, issue 38): a `plan` wallet entry of minus the price, its source `sub:<id>:<period start>`, so
 * a retried subscribe, two control planes renewing at once or a renewal run twice charge a period
 * once. A free plan (price 0) writes nothing.
 */
export function planChargeSource(subscriptionId: string, periodStart: Date): string {
  return `sub:${subscriptionId}:${periodStart.toISOString()}`;
}

/** The debits a transaction made in Redis, to give back if it does not commit. */
export class AppliedDebits {
  private readonly debits: { customerId: string; amountNano: bigint }[] = [];
  private readonly target: WalletTarget;

  constructor(target: WalletTarget) {
    this.target = target;
  }

  add(customerId: string, amountNano: bigint): void {
    this.debits.push({ customerId, amountNano });
  }

  async undo(): Promise<void> {
    for (const debit of this.debits.splice(0)) await undoWalletDebit(this.target, debit.customerId, debit.amountNano);
  }
}

/**
 * Charges `plan.price` for the period [start, end) of the subscription inside the caller's
 * transaction (the customer's row locked by it). Prepaid: from the balance admissions see, or 402
 * `insufficient_balance` and nothing charged; postpaid: always (the balance goes below zero, what
 * the vendor bills it). Null when free or already charged.
 */
export async function chargePlanPeriod(
  tx: Prisma.TransactionClient,
  target: WalletTarget,
  applied: AppliedDebits,
  customer: Pick<Customer, "id" | "billing">,
  plan: Pick<Plan, "id" | "name" | "priceNano">,
  subscription: Pick<Subscription, "id">,
  period: { start: Date; end: Date },
): Promise<WalletEntryRow | null> {
  if (plan.priceNano <= 0n) return null;
  const entry = await debitWallet(tx, target, {
    customerId: customer.id,
    kind: "plan",
    sourceId: planChargeSource(subscription.id, period.start),
    amountNano: plan.priceNano,
    reason: `plan ${plan.name} (${formatUsd(plan.priceNano)}), ${period.start.toISOString()} to ${period.end.toISOString()}`,
    prepaid: customer.billing === "prepaid",
  });
  if (entry) applied.add(customer.id, plan.priceNano);
  return entry;
}
