// Migrations without the native Prisma CLI engine: apply (= `prisma migrate deploy`), diff the
// migrations folder against schema.prisma, and create a new migration from that diff.
import { DEFAULT_DATABASE_URL, ensureDatabase, withDatabase } from "./database-url.ts";
import { PRISMA_DIR, readMigrationList, readSchema, writeMigration } from "./migration-files.ts";
import { type EngineLog, withSchemaEngine } from "./schema-engine.ts";

const NO_FILTERS = { externalTables: [], externalEnums: [] };

/**
 * Applies pending migrations to `url` (creating the database first if needed) and records them in
 * `_prisma_migrations`, as `prisma migrate deploy` does. Idempotent. Returns the names applied now.
 */
export async function applyMigrations(url: string, log?: EngineLog): Promise<string[]> {
  await ensureDatabase(url);
  const migrationsList = await readMigrationList();
  const schema = await readSchema();
  const out = await withSchemaEngine(url, schema, (engine) => engine.applyMigrations({ migrationsList, filters: NO_FILTERS }), log);
  return out.appliedMigrationNames;
}

/**
 * SQL that takes a database built by the migrations folder to schema.prisma; "" when they agree.
 * Replays the migrations in a temporary shadow database on the server of `url` (any database URL on
 * that server; it is only used to connect).
 */
export async function diffMigrationsAgainstSchema(url: string = process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL): Promise<string> {
  const serverUrl = withDatabase(url, "postgres");
  const migrationsList = await readMigrationList();
  const schema = await readSchema();
  const result = await withSchemaEngine(serverUrl, schema, (engine) =>
    engine.diff({
      from: migrationsList.migrationDirectories.length ? { tag: "migrations", ...migrationsList } : { tag: "empty" },
      to: { tag: "schemaDatamodel", files: [schema] },
      script: true,
      exitCode: null,
      filters: NO_FILTERS,
    }),
  );
  return isEmptyScript(result.stdout ?? "") ? "" : (result.stdout ?? "");
}

/** SQL that takes the live database at `url` to schema.prisma (drift check); "" when they agree. */
export async function diffDatabaseAgainstSchema(url: string): Promise<string> {
  const schema = await readSchema();
  const result = await withSchemaEngine(url, schema, (engine) =>
    engine.diff({
      from: { tag: "schemaDatasource", files: [schema], configDir: PRISMA_DIR },
      to: { tag: "schemaDatamodel", files: [schema] },
      script: true,
      exitCode: null,
      filters: NO_FILTERS,
    }),
  );
  return isEmptyScript(result.stdout ?? "") ? "" : (result.stdout ?? "");
}

/** Writes a new migration folder with the pending diff; returns its name, or null for no changes. */
export async function createMigration(name: string, url?: string): Promise<string | null> {
  const sql = await diffMigrationsAgainstSchema(url);
  if (!sql) return null;
  return writeMigration(name, sql);
}

function isEmptyScript(sql: string): boolean {
  return sql.split("\n").every((line) => line.trim() === "" || line.trim().startsWith("--"));
}
