import type { ControlPlaneServices } from "./services.ts";
import { rebuildKeyRecords } from "./keys/key-service.ts";
import { publishSnapshot } from "./snapshot/publish-snapshot.ts";

/** Restores every Redis record from Postgres: the routing snapshot and every key. */
export async function rebuildRedis(services: Pick<ControlPlaneServices, "db" | "records">): Promise<{ keys: number; snapshotVersion: number }> {
  const snapshotVersion = await publishSnapshot(services.db.prisma, services.records);
  const keys = await rebuildKeyRecords(services.db.prisma, services.records);
  return { keys, snapshotVersion };
}
