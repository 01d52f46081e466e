// @gateway/db: the Prisma client over @prisma/adapter-pg, the generated model types, and migrations.
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaClient } from "./generated/client.ts";

export * from "./generated/client.ts";
export { DEFAULT_DATABASE_URL, databaseName, dropDatabase, ensureDatabase, withDatabase } from "./database-url.ts";
export { applyMigrations, createMigration, diffDatabaseAgainstSchema, diffMigrationsAgainstSchema } from "./migrate.ts";
export { API_KEY_STATUSES, UPSTREAM_SHAPES, USAGE_STATUSES } from "./domain.ts";
export type { ApiKeyStatus, UpstreamShape, UsageStatus } from "./domain.ts";
export { emitWebhookEvent, isWebhookEventType, WEBHOOK_EVENT_TYPES, webhookEventBody, webhookEventId } from "./webhook-events.ts";
export type { EmittedWebhookEvent, WebhookEmitClient, WebhookEventInput, WebhookEventType } from "./webhook-events.ts";

export interface DbOptions {
  url: string;
  /** Upper bound of pooled connections (default 10). */
  poolSize?: number;
  /**
   * How long a pooled connection may sit idle before it is closed (default pg's 10 s; 0 = never).
   * A new connection is a new Postgres backend, which plans every statement again.
   */
  idleTimeoutMs?: number;
  /**
   * Whether `query` may keep a named statement prepared on each connection (default false): parsed
   * and planned once per connection, then only bound and run. Postgres itself, and PgBouncer 1.21+
   * in transaction mode with `max_prepared_statements` above 0, keep them; an older PgBouncer in
   * transaction mode does not.
   */
  preparedStatements?: boolean;
}

export interface Db {
  prisma: PrismaClient;
  /**
   * One statement straight on the pool Prisma uses, for a hot statement whose parameters Prisma's
   * raw-query path would copy several times (the billing worker's batches). A failure is pg's
   * DatabaseError: `code` is the SQLSTATE.
   */
  query<Row>(text: string, values?: unknown[], options?: QueryOptions): Promise<Row[]>;
  close(): Promise<void>;
}

export interface QueryOptions {
  /**
   * A name for the statement, unique to its text: with `preparedStatements` on, each connection
   * prepares it once (a large statement's planning is most of its cost) and later runs only bind
   * and execute it. Ignored when they are off.
   */
  name?: string;
}

/**
 * A Prisma client over a bounded pg pool. Relies on no session state (no SET, no advisory locks,
 * unnamed statements unless `preparedStatements` is on), so it also works through PgBouncer in
 * transaction mode.
 */
export function createDb(options: DbOptions): Db {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize ?? 10,
    ...(options.idleTimeoutMs !== undefined ? { idleTimeoutMillis: options.idleTimeoutMs } : {}),
  });
  // An idle connection cut by the server (a restart) must not crash the process; the next query
  // opens a new one.
  pool.on("error", () => {});
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  let closing: Promise<void> | undefined;
  return {
    prisma,
    query: async <Row>(text: string, values?: unknown[], queryOptions?: QueryOptions) => {
      const name = options.preparedStatements === true ? queryOptions?.name : undefined;
      return (await (name === undefined ? pool.query(text, values) : pool.query({ name, text, values }))).rows as Row[];
    },
    close: () => (closing ??= prisma.$disconnect().then(() => pool.end())),
  };
}
