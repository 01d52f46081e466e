// Helpers around PostgreSQL connection URLs and server-level admin statements (create/drop a
// database). Admin statements connect to the `postgres` maintenance database of the same server.
import pg from "pg";

export const DEFAULT_DATABASE_URL = "postgresql://postgres@127.0.0.1:5432/gateway";

/** Explicit pg pool settings for a URL; `database` overrides the URL's database name. */
export function poolConfigFor(url: string, database?: string): pg.PoolConfig {
  const u = new URL(url);
  const sslmode = u.searchParams.get("sslmode");
  return {
    host: decodeURIComponent(u.hostname) || "127.0.0.1",
    port: u.port ? Number(u.port) : 5432,
    user: u.username ? decodeURIComponent(u.username) : undefined,
    password: u.password ? decodeURIComponent(u.password) : undefined,
    database: database ?? databaseName(url),
    ssl: sslmode && sslmode !== "disable" && sslmode !== "prefer" ? { rejectUnauthorized: sslmode.startsWith("verify") } : undefined,
  };
}

/** The database name a URL points at (`postgres` when absent). */
export function databaseName(url: string): string {
  const name = decodeURIComponent(new URL(url).pathname.replace(/^\//, ""));
  return name || "postgres";
}

/** The same URL with another database name. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${encodeURIComponent(database)}`;
  return u.toString();
}

export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Runs `fn` with a client connected to the server's maintenance database. */
export async function withAdminClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client(poolConfigFor(url, "postgres"));
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Creates the database of `url` unless it exists. Returns true when it was created. */
export async function ensureDatabase(url: string): Promise<boolean> {
  const name = databaseName(url);
  return withAdminClient(url, async (client) => {
    const found = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (found.rowCount) return false;
    try {
      await client.query(`CREATE DATABASE ${quoteIdent(name)}`);
      return true;
    } catch (err) {
      // 42P04 duplicate_database, 23505: a concurrent creator won the race.
      const code = (err as { code?: string }).code;
      if (code === "42P04" || code === "23505") return false;
      throw err;
    }
  });
}

/** Drops the database of `url`, terminating its connections first. */
export async function dropDatabase(url: string): Promise<void> {
  const name = databaseName(url);
  await withAdminClient(url, async (client) => {
    await client.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", [name]);
    await client.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
  });
}
