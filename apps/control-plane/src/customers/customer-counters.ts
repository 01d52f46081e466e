import { budgetWindow, isBudgetPeriod, type BudgetPeriod } from "@gateway/contracts";
import type { PrismaClient } from "@gateway/db";
import { budgetCounter, rebuildWalletCounters, setCustomerBudgetSpent, type RedisClient } from "@gateway/redis-store";

type Db = Pick<PrismaClient, "$queryRaw">;

/** What Postgres says of a customer's money: credits (wallet_entries), its keys' spend, and their spend since `since`. */
export interface CustomerLedger {
  creditedNano: bigint;
  spentNano: bigint;
  /** Spend in the current budget period; 0 without a budget. */
  periodSpentNano: bigint;
}

/**
 * The ledger's figures for a customer. Spend is the per-day aggregates of its keys (the ones the
 * billing worker writes with each ledger row), so a budget period (starting at UTC midnight) sums
 * exactly.
 */
export async function customerLedger(db: Db, customerId: string, period: BudgetPeriod | null, now = Date.now()): Promise<CustomerLedger> {
  const since = period === null ? null : new Date(budgetWindow(period, now).start);
  const [row] = await db.$queryRaw<{ credited: bigint; spent: bigint; period_spent: bigint }[]>`
    SELECT
      (SELECT COALESCE(SUM(amount_nano), 0)::bigint FROM wallet_entries WHERE customer_id = ${customerId}) AS credited,
      COALESCE(SUM(a.cost_nano), 0)::bigint AS spent,
      COALESCE(SUM(a.cost_nano) FILTER (WHERE ${since}::timestamptz IS NOT NULL AND a.day >= (${since}::timestamptz AT TIME ZONE 'UTC')::date), 0)::bigint AS period_spent
    FROM api_keys k LEFT JOIN usage_aggregates a ON a.api_key_id = k.id
    WHERE k.customer_id = ${customerId}`;
  return { creditedNano: row?.credited ?? 0n, spentNano: row?.spent ?? 0n, periodSpentNano: row?.period_spent ?? 0n };
}

/**
 * Postgres's figures replace a customer's counters in Redis: the wallet (prepaid: credited and
 * spent) and the current period's budget counter. Reservations in flight are forgotten, as a
 * key's rebuild does.
 */
export async function restoreCustomerCounters(db: Db, redis: RedisClient, prefix: string, customer: { id: string; billing: string; budgetPeriod: string | null; budgetNano: bigint | null }, now = Date.now()): Promise<void> {
  const period = customer.budgetNano !== null && isBudgetPeriod(customer.budgetPeriod) ? customer.budgetPeriod : null;
  const ledger = await customerLedger(db, customer.id, period, now);
  if (customer.billing === "prepaid") await rebuildWalletCounters(redis, prefix, customer.id, ledger.creditedNano, ledger.spentNano);
  if (period !== null) await setCustomerBudgetSpent(redis, prefix, customer.id, budgetCounter(period, now), ledger.periodSpentNano);
}

/** Every customer's counters from Postgres (after a Redis flush, or at start), like the keys' quotas and budgets. */
export async function rebuildCustomerCounters(prisma: PrismaClient, redis: RedisClient, prefix: string): Promise<number> {
  let restored = 0;
  let cursor: string | undefined;
  for (;;) {
    const page = await prisma.customer.findMany({
      where: { OR: [{ billing: "prepaid" }, { budgetNano: { not: null } }] },
      take: 500,
      ...(cursor ? { skip: 1, cursor: { id: cursor } } : {}),
      orderBy: { id: "asc" },
      select: { id: true, billing: true, budgetNano: true, budgetPeriod: true },
    });
    if (page.length === 0) break;
    for (const customer of page) await restoreCustomerCounters(prisma, redis, prefix, customer);
    restored += page.length;
    cursor = page.at(-1)!.id;
  }
  return restored;
}
