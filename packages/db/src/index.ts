// @gateway/db: the Prisma client over @prisma/adapter-pg, the generated model types, and migrations.
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "./generated/client.ts";

export * from "./generated/client.ts";
export { DEFAULT_DATABASE_URL, databaseName, dropDatabase, ensureDatabase, withDatabase } from "./database-url.ts";
export { applyMigrations, createMigration, diffDatabaseAgainstSchema, diffMigrationsAgainstSchema } from "./migrate.ts";
export { API_KEY_STATUSES, UPSTREAM_SHAPES, USAGE_STATUSES } from "./domain.ts";
export type { ApiKeyStatus, UpstreamShape, UsageStatus } from "./domain.ts";

export interface DbOptions {
  url: string;
  /** Upper bound of pooled connections (default 10). */
  poolSize?: number;
}

export interface Db {
  prisma: PrismaClient;
  close(): Promise<void>;
}

/**
 * A Prisma client over a bounded pg pool. Relies on no session state (no SET, no advisory locks,
 * unnamed statements), so it also works through PgBouncer in transaction mode.
 */
export function createDb(options: DbOptions): Db {
  const adapter = new PrismaPg({ connectionString: options.url, max: options.poolSize ?? 10 });
  const prisma = new PrismaClient({ adapter });
  let closing: Promise<void> | undefined;
  return {
    prisma,
    close: () => (closing ??= prisma.$disconnect()),
  };
}
