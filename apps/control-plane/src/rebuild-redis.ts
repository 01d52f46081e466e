import { LimitStore } from "@gateway/redis-store";
import type { ControlPlaneServices } from "./services.ts";
import { rebuildKeyRecords } from "./keys/key-service.ts";
import { publishSnapshot } from "./snapshot/publish-snapshot.ts";

/**
 * Restores every Redis record from Postgres: every key, each quota key's spent counter from the
 * ledger (reservations in flight start again from zero), then the routing snapshot. The snapshot
 * goes last because proxies read its presence as "the store is filled": until then a key they
 * cannot find gets 503, never a false 401.
 */
export async function rebuildRedis(services: Pick<ControlPlaneServices, "db" | "records" | "config">): Promise<{ keys: number; quotas: number; snapshotVersion: number }> {
  const keys = await rebuildKeyRecords(services.db.prisma, services.records);
  const quotas = await rebuildQuotaCounters(services);
  const snapshotVersion = await publishSnapshot(services.db.prisma, services.records);
  return { keys, quotas, snapshotVersion };
}

async function rebuildQuotaCounters(services: Pick<ControlPlaneServices, "db" | "records" | "config">): Promise<number> {
  const limits = new LimitStore(services.records.redis, services.config.REDIS_PREFIX);
  const keys = await services.db.prisma.apiKey.findMany({ where: { quotaNano: { not: null } }, select: { id: true } });
  const spent = await services.db.prisma.usageAggregate.groupBy({ by: ["apiKeyId"], where: { apiKeyId: { in: keys.map((key) => key.id) } }, _sum: { costNano: true } });
  const byKey = new Map(spent.map((row) => [row.apiKeyId, row._sum.costNano ?? 0n]));
  for (const key of keys) await limits.setSpent(key.id, byKey.get(key.id) ?? 0n);
  return keys.length;
}
