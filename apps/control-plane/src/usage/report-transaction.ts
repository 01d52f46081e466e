import type { Prisma, PrismaClient } from "@gateway/db";

/**
 * Runs one report query with parallel workers and JIT off for its transaction only (`set_config`
 * with is_local, as SET LOCAL does: no session state, so PgBouncer in transaction mode is fine).
 * A report reads up to some hundred thousand index entries: starting workers for that cost more
 * than they saved (2 to 8 times slower, docs/ledger-queries.md) and would take them from the shared
 * pool, and compiling a query (JIT) alone costs tens of milliseconds.
 */
export async function withoutParallelWorkers<Row>(prisma: PrismaClient, query: Prisma.Sql): Promise<Row[]> {
  const [, rows] = await prisma.$transaction([
    prisma.$queryRaw`SELECT set_config('max_parallel_workers_per_gather', '0', true), set_config('jit', 'off', true)`,
    prisma.$queryRaw<Row[]>(query),
  ]);
  return rows;
}
