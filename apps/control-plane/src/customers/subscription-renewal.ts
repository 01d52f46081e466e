import { formatUsd, GatewayError } from "@gateway/contracts";
import type { PrismaClient } from "@gateway/db";
import type { Logger } from "@gateway/logger";
import { recordAudit, type Actor } from "../keys/audit.ts";
import { PeriodicPass } from "../periodic-pass.ts";
import { publishCustomerKeys, TRANSACTION, type CustomerStores } from "./customer-service.ts";
import { AppliedDebits, chargePlanPeriod } from "./plan-charges.ts";
import { periodEnd, planPeriod } from "./plan-service.ts";

/** Subscriptions read per page of a pass. */
const PAGE = 200;
/** Periods one subscription catches up in one pass (a control plane off for long); the next pass goes on. */
const MAX_PERIODS_PER_PASS = 400;

export type RenewalOutcome = "renewed" | "lapsed" | "not_due";

export interface RenewalReport {
  renewed: number;
  lapsed: number;
}

export interface RenewalContext {
  prisma: PrismaClient;
  stores: CustomerStores;
  logger: Logger;
}

/**
 * Renews one subscription whose period has ended (`current_period_end <= now`): the next period
 * starts where the last ended and its price is charged to the wallet (plan-charges.ts), once per
 * period. A prepaid wallet that cannot pay ends the subscription at the end of the period it paid
 * for (`status: "canceled"`, `canceled_at` = that end, audit `subscription.lapsed`), and the
 * customer's keys are free of the plan within a second; they still draw on the wallet, which is
 * what stops them. Postpaid customers always renew (the charge is what the vendor bills).
 * Serialized with subscribe and cancel by the customer's row lock; the period re-read under it.
 */
export async function renewSubscription(context: RenewalContext, subscriptionId: string, now: Date): Promise<RenewalOutcome> {
  const { prisma, stores } = context;
  const applied = new AppliedDebits(stores);
  try {
    return await prisma.$transaction(async (tx) => {
      const found = await tx.subscription.findUnique({ where: { id: subscriptionId }, select: { customerId: true } });
      if (!found) return "not_due";
      await tx.$queryRaw`SELECT id FROM customers WHERE id = ${found.customerId} FOR UPDATE`;
      const subscription = await tx.subscription.findUniqueOrThrow({ where: { id: subscriptionId }, include: { plan: true, customer: true } });
      if (subscription.status !== "active" || subscription.currentPeriodEnd > now) return "not_due";
      const { customer, plan } = subscription;
      const actor: Actor = { vendorId: customer.vendorId, tokenId: null, requestId: null };
      const period = { start: subscription.currentPeriodEnd, end: periodEnd(subscription.currentPeriodEnd, planPeriod(plan)) };
      let chargeId: string | null = null;
      try {
        chargeId = (await chargePlanPeriod(tx, stores, applied, customer, plan, subscription, period))?.id ?? null;
      } catch (error) {
        if (!(error instanceof GatewayError) || error.code !== "insufficient_balance") throw error;
        await tx.subscription.update({ where: { id: subscription.id }, data: { status: "canceled", canceledAt: period.start } });
        await recordAudit(tx, actor, "subscription.lapsed", subscription.id, { customer_id: customer.id, plan_id: plan.id, reason: "insufficient_balance", price: formatUsd(plan.priceNano), ended_at: period.start.toISOString() });
        await publishCustomerKeys(tx, stores.records, customer.id);
        return "lapsed";
      }
      await tx.subscription.update({ where: { id: subscription.id }, data: { currentPeriodStart: period.start, currentPeriodEnd: period.end } });
      await recordAudit(tx, actor, "subscription.renewed", subscription.id, {
        customer_id: customer.id,
        plan_id: plan.id,
        current_period_start: period.start.toISOString(),
        current_period_end: period.end.toISOString(),
        charged: formatUsd(plan.priceNano),
        wallet_entry_id: chargeId,
      });
      return "renewed";
    }, TRANSACTION);
  } catch (error) {
    await applied.undo();
    throw error;
  }
}

/**
 * Every `intervalMs` (SUBSCRIPTION_RENEW_INTERVAL_MS; 0: never) each active subscription whose
 * period has ended is renewed, one period after another until its period contains `now`, or lapses.
 * Replicas may sweep at once: each period is charged once (the entry's source) and renewed once
 * (the row lock and the re-read end). `now` is injected for tests.
 */
export class SubscriptionRenewal extends PeriodicPass<RenewalReport> {
  private readonly context: RenewalContext;
  private readonly now: () => number;

  constructor(context: RenewalContext, intervalMs: number, now: () => number = Date.now) {
    super("subscription renewal", intervalMs, context.logger);
    this.context = context;
    this.now = now;
  }

  protected async pass(): Promise<RenewalReport> {
    const { prisma, logger } = this.context;
    const now = new Date(this.now());
    const report: RenewalReport = { renewed: 0, lapsed: 0 };
    let after: string | undefined;
    for (;;) {
      const due = await prisma.subscription.findMany({
        where: { status: "active", currentPeriodEnd: { lte: now }, ...(after ? { id: { gt: after } } : {}) },
        select: { id: true },
        orderBy: { id: "asc" },
        take: PAGE,
      });
      for (const { id } of due) {
        try {
          for (let periods = 0; periods < MAX_PERIODS_PER_PASS; periods += 1) {
            const outcome = await renewSubscription(this.context, id, now);
            if (outcome === "renewed") report.renewed += 1;
            if (outcome === "lapsed") report.lapsed += 1;
            if (outcome !== "renewed") break;
          }
        } catch (error) {
          logger.warn({ subscriptionId: id, err: (error as Error).message }, "could not renew a subscription");
        }
      }
      if (due.length < PAGE) return report;
      after = due.at(-1)!.id;
    }
  }
}
