// A throwaway PostgreSQL database per test run: random name, migrated, dropped afterwards.
import { randomBytes } from "node:crypto";
import { applyMigrations, dropDatabase, ensureDatabase, withDatabase } from "@gateway/db";
import { resolveTestServices } from "./services.ts";

export interface TestDatabase {
  /** URL of the new, fully migrated database. */
  url: string;
  /** Terminates its connections and drops it. */
  drop(): Promise<void>;
}

export async function createTestDatabase(options: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const { databaseUrl } = await resolveTestServices();
  const url = withDatabase(databaseUrl, `gw_test_${randomBytes(6).toString("hex")}`);
  await ensureDatabase(url);
  try {
    if (options.migrate ?? true) await applyMigrations(url);
  } catch (err) {
    await dropDatabase(url).catch(() => {});
    throw err;
  }
  let dropping: Promise<void> | undefined;
  return { url, drop: () => (dropping ??= dropDatabase(url)) };
}
