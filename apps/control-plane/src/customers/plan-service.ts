import { formatUsd, GatewayError, parseUsdToNano, type BudgetPeriod } from "@gateway/contracts";
import type { Plan, Prisma, PrismaClient, Subscription } from "@gateway/db";
import { recordAudit, type Actor } from "../keys/audit.ts";
import { storedPlanLimits, type StoredPlanLimit } from "./customer-record.ts";
import type { CreatePlanBody, PlanObject } from "./customer-schemas.ts";
import { findVendorPlan, lockVendorCustomer, publishCustomerKeys, TRANSACTION, type CustomerStores, type Tx } from "./customer-service.ts";
import { isCustomerIdOf, newCustomerId } from "./ids.ts";
import { AppliedDebits, chargePlanPeriod } from "./plan-charges.ts";

export function toPlanObject(row: Plan): PlanObject {
  return {
    id: row.id,
    object: "plan",
    name: row.name,
    price: formatUsd(row.priceNano),
    period: planPeriod(row),
    limits: storedPlanLimits(row).map((limit) => ({ window: limit.window, requests: limit.requests ?? null, usd: limit.usdNano == null ? null : formatUsd(BigInt(limit.usdNano)) })),
    models: row.models,
    status: row.status === "archived" ? "archived" : "active",
    created_at: row.createdAt.toISOString(),
  };
}

/**
 * POST /api/plans: a plan of this vendor, in the caller's transaction (one with an
 * Idempotency-Key's claim); `models` must be models the vendor's server options offer (400 naming
 * the entry).
 */
export async function createPlan(tx: Tx, actor: Actor, body: CreatePlanBody, offered: ReadonlySet<string>): Promise<Plan> {
  body.models.forEach((model, index) => {
    if (!offered.has(model)) throw new GatewayError("invalid_body", `models.${index}: '${model}' is not a model of your server options`, { param: `models.${index}` });
  });
  const limits: StoredPlanLimit[] = body.limits.map((limit) => ({
    window: limit.window,
    requests: limit.requests ?? null,
    usdNano: limit.usd === undefined ? null : parseUsdToNano(limit.usd).toString(),
  }));
  limits.forEach((limit, index) => {
    if (limit.usdNano === "0") throw new GatewayError("invalid_body", `limits.${index}.usd: must be above 0`, { param: `limits.${index}.usd` });
  });
  const row = await tx.plan.create({
    data: { id: newCustomerId("plan"), vendorId: actor.vendorId, name: body.name, priceNano: parseUsdToNano(body.price), period: body.period, limits: limits as unknown as Prisma.InputJsonValue, models: [...new Set(body.models)] },
  });
  await recordAudit(tx, actor, "plan.created", row.id, { name: row.name, price: formatUsd(row.priceNano), period: row.period, limits: toPlanObject(row).limits, models: row.models });
  return row;
}

/** The end of a subscription period starting at `start`: a UTC day, week or calendar month later (clamped to the month's last day). */
export function periodEnd(start: Date, period: BudgetPeriod): Date {
  if (period === "day") return new Date(start.getTime() + 86_400_000);
  if (period === "week") return new Date(start.getTime() + 7 * 86_400_000);
  const end = new Date(start.getTime());
  const day = end.getUTCDate();
  end.setUTCDate(1);
  end.setUTCMonth(end.getUTCMonth() + 1);
  const lastDay = new Date(Date.UTC(end.getUTCFullYear(), end.getUTCMonth() + 1, 0)).getUTCDate();
  end.setUTCDate(Math.min(day, lastDay));
  return end;
}

/**
 * POST /api/customers/{id}/subscriptions: subscribes the customer to one of the vendor's plans. A
 * customer has one active subscription: an earlier one is canceled by the new one (a plan change;
 * the new plan's windows start afresh, nothing of the old period is refunded). The first period's
 * price is charged to the wallet at once (plan-charges.ts): a prepaid customer whose balance does
 * not cover it gets 402 `insufficient_balance` and nothing changes. Every key of the customer is
 * held to the plan within a second.
 */
export async function subscribe(prisma: PrismaClient, stores: CustomerStores, actor: Actor, customerId: string, planId: string, now = new Date()): Promise<Subscription> {
  const applied = new AppliedDebits(stores);
  try {
    return await prisma.$transaction(async (tx) => {
      const customer = await lockVendorCustomer(tx, actor.vendorId, customerId);
      const plan = await findVendorPlan(tx, actor.vendorId, planId);
      if (plan.status !== "active") throw new GatewayError("invalid_body", `plan_id: the plan '${planId}' is archived`, { param: "plan_id" });
      const replaced = await tx.subscription.findMany({ where: { customerId, status: "active" } });
      for (const old of replaced) {
        await tx.subscription.update({ where: { id: old.id }, data: { status: "canceled", canceledAt: now } });
        await recordAudit(tx, actor, "subscription.canceled", old.id, { customer_id: customerId, plan_id: old.planId, replaced_by_plan: planId });
      }
      const period = { start: now, end: periodEnd(now, planPeriod(plan)) };
      const row = await tx.subscription.create({
        data: { id: newCustomerId("sub"), customerId, planId, status: "active", currentPeriodStart: period.start, currentPeriodEnd: period.end },
      });
      // The charge before the key records: a refused charge rolls back before any proxy saw the plan.
      const charge = await chargePlanPeriod(tx, stores, applied, customer, plan, row, period);
      await recordAudit(tx, actor, "subscription.created", row.id, { customer_id: customerId, plan_id: planId, charged: formatUsd(plan.priceNano), wallet_entry_id: charge?.id ?? null });
      await publishCustomerKeys(tx, stores.records, customerId);
      return row;
    }, TRANSACTION);
  } catch (error) {
    await applied.undo();
    throw error;
  }
}

export function planPeriod(plan: Pick<Plan, "period">): BudgetPeriod {
  return plan.period === "day" || plan.period === "week" ? plan.period : "month";
}

/** DELETE /api/customers/{id}/subscriptions/{sub_id}: ends it now; the customer's keys are free of the plan within a second. */
export async function cancelSubscription(prisma: PrismaClient, stores: CustomerStores, actor: Actor, customerId: string, subscriptionId: string, now = new Date()): Promise<Subscription> {
  return prisma.$transaction(async (tx) => {
    await lockVendorCustomer(tx, actor.vendorId, customerId);
    const row = isCustomerIdOf("sub", subscriptionId) ? await tx.subscription.findFirst({ where: { id: subscriptionId, customerId } }) : null;
    if (!row) throw new GatewayError("not_found", `No subscription with id '${subscriptionId}'.`, { param: "sub_id" });
    if (row.status === "canceled") return row;
    const canceled = await tx.subscription.update({ where: { id: row.id }, data: { status: "canceled", canceledAt: now } });
    await recordAudit(tx, actor, "subscription.canceled", row.id, { customer_id: customerId, plan_id: row.planId });
    await publishCustomerKeys(tx, stores.records, customerId);
    return canceled;
  }, TRANSACTION);
}
