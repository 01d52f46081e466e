import { isBudgetPeriod } from "@gateway/contracts";
import type { Customer, Plan, PrismaClient } from "@gateway/db";
import { PLAN_WINDOWS, type CustomerRecord, type PlanWindow } from "@gateway/redis-store";

type Db = Pick<PrismaClient, "customer" | "subscription">;

/** A plan's limits as stored (`plans.limits`): `usdNano` a decimal string of nano-USD. */
export interface StoredPlanLimit {
  window: PlanWindow;
  requests?: number | null;
  usdNano?: string | null;
}

export function storedPlanLimits(plan: Pick<Plan, "limits">): StoredPlanLimit[] {
  if (!Array.isArray(plan.limits)) return [];
  return (plan.limits as unknown[]).flatMap((item) => {
    if (typeof item !== "object" || item === null) return [];
    const limit = item as Record<string, unknown>;
    if (!(PLAN_WINDOWS as readonly unknown[]).includes(limit.window)) return [];
    return [{ window: limit.window as PlanWindow, requests: typeof limit.requests === "number" ? limit.requests : null, usdNano: typeof limit.usdNano === "string" ? limit.usdNano : null }];
  });
}

/** The customer as every proxy reads it inside its keys' records (redis-store customerRecordSchema). */
export function toCustomerRecord(customer: Customer, active: { id: string; plan: Plan } | null): CustomerRecord {
  return {
    id: customer.id,
    status: customer.status === "disabled" ? "disabled" : "active",
    prepaid: customer.billing === "prepaid",
    budget: customer.budgetNano !== null && isBudgetPeriod(customer.budgetPeriod) ? { limitNano: customer.budgetNano.toString(), period: customer.budgetPeriod } : null,
    plan: active
      ? {
          subscriptionId: active.id,
          models: active.plan.models,
          windows: storedPlanLimits(active.plan).map((limit) => ({ window: limit.window, requests: limit.requests ?? null, usdNano: limit.usdNano ?? null })),
        }
      : null,
  };
}

/** The customer's record from Postgres (its row and its active subscription's plan); null for no customer. */
export async function loadCustomerRecord(db: Db, customerId: string | null): Promise<CustomerRecord | null> {
  if (customerId === null) return null;
  const customer = await db.customer.findUnique({ where: { id: customerId } });
  if (!customer) return null;
  const active = await db.subscription.findFirst({ where: { customerId, status: "active" }, include: { plan: true }, orderBy: { createdAt: "desc" } });
  return toCustomerRecord(customer, active);
}

/** The records of many customers at once (a rebuild's page of keys). */
export async function loadCustomerRecords(db: Db, customerIds: readonly (string | null)[]): Promise<Map<string, CustomerRecord>> {
  const ids = [...new Set(customerIds.filter((id): id is string => id !== null))];
  const records = new Map<string, CustomerRecord>();
  if (ids.length === 0) return records;
  const customers = await db.customer.findMany({ where: { id: { in: ids } } });
  const subscriptions = await db.subscription.findMany({ where: { customerId: { in: ids }, status: "active" }, include: { plan: true }, orderBy: { createdAt: "asc" } });
  const active = new Map(subscriptions.map((subscription) => [subscription.customerId, subscription]));
  for (const customer of customers) records.set(customer.id, toCustomerRecord(customer, active.get(customer.id) ?? null));
  return records;
}
