import { budgetWindow, formatUsd, GatewayError, isBudgetPeriod, parseUsdToNano, type BudgetPeriod } from "@gateway/contracts";
import type { Customer, Plan, Prisma, PrismaClient, Subscription } from "@gateway/db";
import type { RecordStore, RedisClient } from "@gateway/redis-store";
import { recordAudit, type Actor } from "../keys/audit.ts";
import { keyRecordsOf } from "../keys/key-record.ts";
import { publishKeyRecords } from "../keys/publish-key.ts";
import { customerLedger, restoreCustomerCounters } from "./customer-counters.ts";
import { loadCustomerRecord } from "./customer-record.ts";
import type { CreateCustomerBody, CustomerObject, SubscriptionObject, UpdateCustomerBody } from "./customer-schemas.ts";
import { isCustomerIdOf, newCustomerId } from "./ids.ts";

export type Tx = Parameters<Parameters<PrismaClient["$transaction"]>[0]>[0];

/** What customers' changes need: Postgres, the key records, the counters' Redis. */
export interface CustomerStores {
  records: RecordStore;
  redis: RedisClient;
  prefix: string;
}

export const TRANSACTION = { maxWait: 10_000, timeout: 15_000 } as const;

/** A customer of this vendor, or 404: another vendor's customer is reported exactly like a missing one. */
export async function findVendorCustomer(db: Pick<PrismaClient, "customer">, vendorId: string, id: string): Promise<Customer> {
  const customer = isCustomerIdOf("cus", id) ? await db.customer.findFirst({ where: { id, vendorId } }) : null;
  if (!customer) throw new GatewayError("not_found", `No customer with id '${id}'.`, { param: "id" });
  return customer;
}

/** Locks the vendor's customer row for the rest of the transaction (changes of one customer take turns). */
export async function lockVendorCustomer(tx: Tx, vendorId: string, id: string): Promise<Customer> {
  if (!isCustomerIdOf("cus", id)) throw new GatewayError("not_found", `No customer with id '${id}'.`, { param: "id" });
  const locked = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM customers WHERE id = ${id} AND vendor_id = ${vendorId} FOR UPDATE`;
  if (locked.length === 0) throw new GatewayError("not_found", `No customer with id '${id}'.`, { param: "id" });
  return tx.customer.findUniqueOrThrow({ where: { id } });
}

export function toSubscriptionObject(row: Subscription): SubscriptionObject {
  return {
    id: row.id,
    object: "subscription",
    customer_id: row.customerId,
    plan_id: row.planId,
    status: row.status === "canceled" ? "canceled" : "active",
    current_period_start: row.currentPeriodStart.toISOString(),
    current_period_end: row.currentPeriodEnd.toISOString(),
    created_at: row.createdAt.toISOString(),
    canceled_at: row.canceledAt?.toISOString() ?? null,
  };
}

/** The customer object with its ledger figures: balance and budget use. */
export async function presentCustomer(db: Pick<PrismaClient, "$queryRaw" | "subscription">, row: Customer, now = Date.now()): Promise<CustomerObject> {
  const period = row.budgetNano !== null && isBudgetPeriod(row.budgetPeriod) ? row.budgetPeriod : null;
  const [ledger, active] = await Promise.all([
    customerLedger(db, row.id, period, now),
    db.subscription.findFirst({ where: { customerId: row.id, status: "active" }, orderBy: { createdAt: "desc" } }),
  ]);
  const prepaid = row.billing === "prepaid";
  return {
    id: row.id,
    object: "customer",
    name: row.name,
    email: row.email,
    status: row.status === "disabled" ? "disabled" : "active",
    billing: prepaid ? "prepaid" : "postpaid",
    balance: formatUsd(prepaid ? ledger.creditedNano - ledger.spentNano : ledger.creditedNano),
    budget:
      period === null || row.budgetNano === null
        ? null
        : { limit: formatUsd(row.budgetNano), period, used: formatUsd(ledger.periodSpentNano), resets_at: new Date(budgetWindow(period, now).end).toISOString() },
    metadata: typeof row.metadata === "object" && row.metadata !== null && !Array.isArray(row.metadata) ? (row.metadata as Record<string, unknown>) : {},
    subscription: active ? toSubscriptionObject(active) : null,
    created_at: row.createdAt.toISOString(),
  };
}

function storeUnavailable(error: unknown): GatewayError {
  return new GatewayError("dependency_unavailable", "The key store is unavailable; nothing was changed. Try again shortly.", { cause: error, retryAfter: 1 });
}

/**
 * Rewrites the Redis records of every key of the customer (with a new revision each), so every
 * proxy sees the customer's change within a second: the key records' write publishes their
 * eviction, as a key's own change does. Inside the caller's transaction: when Redis cannot take
 * it, the change rolls back (503).
 */
export async function publishCustomerKeys(tx: Tx, records: RecordStore, customerId: string): Promise<number> {
  await tx.$executeRaw`UPDATE api_keys SET revision = revision + 1 WHERE customer_id = ${customerId} AND status <> 'revoked'`;
  const keys = await tx.apiKey.findMany({ where: { customerId, status: { not: "revoked" } }, include: { serverOption: { select: { name: true } } } });
  const customer = await loadCustomerRecord(tx, customerId);
  await publishKeyRecords(records, keys.flatMap((key) => keyRecordsOf(key, key.serverOption.name, customer)));
  return keys.length;
}

/** POST /api/customers: the row and its audit entry, in the caller's transaction (one with an Idempotency-Key's claim); a new customer has no keys, so nothing to publish. */
export async function createCustomer(tx: Tx, stores: CustomerStores, actor: Actor, body: CreateCustomerBody): Promise<Customer> {
  const row = await tx.customer.create({
    data: {
      id: newCustomerId("cus"),
      vendorId: actor.vendorId,
      name: body.name,
      email: body.email,
      metadata: body.metadata as Prisma.InputJsonValue,
      billing: body.billing,
      budgetNano: body.budget === null ? null : parseUsdToNano(body.budget.limit),
      budgetPeriod: body.budget?.period ?? null,
    },
  });
  await recordAudit(tx, actor, "customer.created", row.id, {
    name: row.name,
    billing: row.billing,
    ...(body.email !== null ? { email: body.email } : {}),
    ...(body.budget !== null ? { budget: { limit: formatUsd(parseUsdToNano(body.budget.limit)), period: body.budget.period } } : {}),
  });
  try {
    // Counters start from Postgres's figures (nothing yet): a stale wallet of a reused id cannot leak in.
    await restoreCustomerCounters(tx, stores.redis, stores.prefix, row);
  } catch (error) {
    throw storeUnavailable(error);
  }
  return row;
}

/**
 * PATCH /api/customers/{id}: only the fields sent change. A new budget (or period) starts its
 * counter from the ledger before any proxy sees it; a change the proxies read (status, budget)
 * rewrites every key's record of the customer in the same transaction.
 */
export async function updateCustomer(prisma: PrismaClient, stores: CustomerStores, actor: Actor, id: string, body: UpdateCustomerBody): Promise<Customer> {
  return prisma.$transaction(async (tx) => {
    const before = await lockVendorCustomer(tx, actor.vendorId, id);
    const data: Prisma.CustomerUncheckedUpdateInput = {};
    const changes: Record<string, unknown> = {};
    if (body.name !== undefined && body.name !== before.name) data.name = changes.name = body.name;
    if (body.email !== undefined && body.email !== before.email) data.email = changes.email = body.email;
    if (body.metadata !== undefined) data.metadata = changes.metadata = body.metadata as Prisma.InputJsonValue;
    let budget: { limitNano: bigint; period: BudgetPeriod } | null | undefined;
    if (body.budget !== undefined) {
      budget = body.budget === null ? null : { limitNano: parseUsdToNano(body.budget.limit), period: body.budget.period };
      data.budgetNano = budget?.limitNano ?? null;
      data.budgetPeriod = budget?.period ?? null;
      changes.budget = budget === null ? null : { limit: formatUsd(budget.limitNano), period: budget.period };
    }
    if (body.status !== undefined && body.status !== before.status) data.status = changes.status = body.status;
    if (Object.keys(changes).length === 0) return before;
    const row = await tx.customer.update({ where: { id }, data: { ...data, revision: { increment: 1 } } });
    await recordAudit(tx, actor, "customer.updated", id, changes);
    if (budget && budget.period !== before.budgetPeriod) {
      try {
        await restoreCustomerCounters(tx, stores.redis, stores.prefix, { ...row, billing: "postpaid" });
      } catch (error) {
        throw storeUnavailable(error);
      }
    }
    if (changes.status !== undefined || changes.budget !== undefined) await publishCustomerKeys(tx, stores.records, id);
    return row;
  }, TRANSACTION);
}

/** The plan of this vendor, or 404. */
export async function findVendorPlan(db: Pick<PrismaClient, "plan">, vendorId: string, id: string, param = "plan_id"): Promise<Plan> {
  const plan = isCustomerIdOf("plan", id) ? await db.plan.findFirst({ where: { id, vendorId } }) : null;
  if (!plan) throw new GatewayError("not_found", `No plan with id '${id}'.`, { param });
  return plan;
}
