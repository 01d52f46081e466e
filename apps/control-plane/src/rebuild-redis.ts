import { budgetCounter, type LimitStore } from "@gateway/redis-store";
import { isBudgetPeriod } from "@gateway/contracts";
import { loadKeyActivity } from "./vendors/key-object.ts";
import type { ControlPlaneServices } from "./services.ts";
import { rebuildKeyRecords } from "./keys/key-service.ts";
import { rebuildCustomerCounters } from "./customers/customer-counters.ts";
import { publishSnapshot } from "./snapshot/publish-snapshot.ts";

/**
 * Restores every Redis record from Postgres: every key, each quota key's spent counter from the
 * ledger (reservations in flight start again from zero), then the routing snapshot. The snapshot
 * goes last because proxies read its presence as "the store is filled": until then a key they
 * cannot find gets 503, never a false 401.
 */
export async function rebuildRedis(services: Pick<ControlPlaneServices, "db" | "records" | "limits">): Promise<{ keys: number; quotas: number; snapshotVersion: number }> {
  const keys = await rebuildKeyRecords(services.db.prisma, services.records);
  const quotas = await rebuildQuotaCounters(services);
  const snapshotVersion = await publishSnapshot(services.db.prisma, services.records);
  return { keys, quotas, snapshotVersion };
}

async function rebuildQuotaCounters(services: Pick<ControlPlaneServices, "db" | "limits">): Promise<number> {
  const { limits } = services;
  const keys = await services.db.prisma.apiKey.findMany({ where: { quotaNano: { not: null } }, select: { id: true, customerId: true } });
  const spent = await services.db.prisma.usageAggregate.groupBy({ by: ["apiKeyId"], where: { apiKeyId: { in: keys.map((key) => key.id) } }, _sum: { costNano: true } });
  const byKey = new Map(spent.map((row) => [row.apiKeyId, row._sum.costNano ?? 0n]));
  // A customer's key keeps its counters in its customer's slot (redisKeys.limits).
  for (const key of keys) await limits.setSpent(key.id, byKey.get(key.id) ?? 0n, key.customerId);
  await rebuildBudgetCounters(services, limits);
  return keys.length;
}

/** Each budget's counter for the current period, from the ledger's spend in that period. */
async function rebuildBudgetCounters(services: Pick<ControlPlaneServices, "db">, limits: LimitStore): Promise<void> {
  const now = Date.now();
  const budgeted = await services.db.prisma.apiKey.findMany({ where: { budgetNano: { not: null }, status: { not: "revoked" } } });
  for (let start = 0; start < budgeted.length; start += 500) {
    const page = budgeted.slice(start, start + 500);
    const activity = await loadKeyActivity(services.db.prisma, page, now);
    for (const key of page) {
      if (!isBudgetPeriod(key.budgetPeriod)) continue;
      await limits.setBudgetSpent(key.id, budgetCounter(key.budgetPeriod, now), activity.get(key.id)!.budgetUsedNano, key.customerId);
    }
  }
  await rebuildCustomerCounters(services.db.prisma, limits.client, limits.prefix);
}
