import pg from "pg";
import { describe, expect, it } from "vitest";
import { withDatabase } from "@gateway/db";
import { createTestDatabase } from "./database.ts";
import { resolveTestServices } from "./services.ts";

async function query(url: string, sql: string, params: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(sql, params);
  } finally {
    await client.end();
  }
}

describe("createTestDatabase", () => {
  it("creates a migrated database with a random name and drops it", { timeout: 60_000 }, async () => {
    const services = await resolveTestServices();
    expect(await resolveTestServices()).toBe(services);

    const [a, b] = await Promise.all([createTestDatabase(), createTestDatabase()]);
    try {
      expect(a.url).toMatch(/\/gw_test_[0-9a-f]{12}$/);
      expect(a.url).not.toBe(b.url);
      const migrations = await query(a.url, "SELECT count(*)::int AS n FROM _prisma_migrations WHERE finished_at IS NOT NULL");
      expect(migrations.rows[0].n).toBeGreaterThan(0);
    } finally {
      await Promise.all([a.drop(), b.drop()]);
    }
    // The server's maintenance database: the one DATABASE_URL names need not exist (tests make their own).
    const left = await query(withDatabase(services.databaseUrl, "postgres"), "SELECT datname FROM pg_database WHERE datname = ANY($1)", [
      [a.url, b.url].map((u) => new URL(u).pathname.slice(1)),
    ]);
    expect(left.rowCount).toBe(0);
  });
});
