import { afterAll, beforeAll, describe, expect, it } from "vitest";
// Relative import, not a package dependency: @gateway/testing depends on @gateway/db.
import { createTestDatabase, type TestDatabase } from "../../testing/src/index.ts";
import { applyMigrations, createDb, diffDatabaseAgainstSchema, diffMigrationsAgainstSchema, type Db } from "./index.ts";
import { readMigrationList } from "./migration-files.ts";

/** A database of the describe block's own (created before its tests, dropped after); the getter reads it. */
function useTestDatabase(options?: { migrate?: boolean }): () => TestDatabase {
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    database = await createTestDatabase(options);
  });
  afterAll(async () => {
    await database?.drop();
  });
  return () => database!;
}

describe("migrations", () => {
  const testDatabase = useTestDatabase({ migrate: false });

  it("apply every migration folder once, then nothing the second time", async () => {
    const { migrationDirectories } = await readMigrationList();
    expect(migrationDirectories.length).toBeGreaterThan(0);
    expect(await applyMigrations(testDatabase().url)).toEqual(migrationDirectories.map((d) => d.path));
    expect(await applyMigrations(testDatabase().url)).toEqual([]);
  });

  it("match schema.prisma exactly (empty diff), in a replay and in the migrated database", async () => {
    expect(await diffMigrationsAgainstSchema(testDatabase().url)).toBe("");
    expect(await diffDatabaseAgainstSchema(testDatabase().url)).toBe("");
  });
});

describe("client round trip", () => {
  let database: TestDatabase;
  let db: Db;

  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDb({ url: database.url, poolSize: 2 });
  });
  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  it("stores vendors, server options, keys and usage with BigInt money intact", async () => {
    const { prisma } = db;
    const big = 9_223_372_036_854_775_807n; // BIGINT max: far beyond Number.MAX_SAFE_INTEGER
    await prisma.vendor.create({ data: { id: "vnd_1", name: "acme" } });
    await prisma.serverOption.create({
      data: { id: "so_1", name: "standard", rpm: 600, tpm: 200_000, vendors: { create: { vendorId: "vnd_1" } } },
    });
    await prisma.model.create({
      data: { id: "mdl_1", name: "gpt-test", displayName: "GPT Test", ownedBy: "sim", inputPrice: 150_000n, outputPrice: 600_000n },
    });
    await prisma.serverOptionModel.create({ data: { serverOptionId: "so_1", modelId: "mdl_1", outputPrice: 700_000n } });
    await prisma.apiKey.create({
      data: {
        id: "key_1", vendorId: "vnd_1", serverOptionId: "so_1", name: "k", keyHash: "h".repeat(64), prefix: "sk-ab12",
        quotaNano: big, metadata: { team: "a" },
      },
    });
    const started = new Date("2026-01-02T03:04:05.678Z");
    await prisma.usageRecord.create({
      data: {
        requestId: "req_1", apiKeyId: "key_1", vendorId: "vnd_1", model: "gpt-test", upstream: "sim", upstreamModel: "gpt-sim",
        endpoint: "chat.completions", status: "ok", estimated: false, inputTokens: 2n ** 40n, outputTokens: 500,
        costNano: big - 1n, startedAt: started, finishedAt: new Date(started.getTime() + 1500), ttfbMs: 120,
      },
    });
    await prisma.usageAggregate.create({
      data: { apiKeyId: "key_1", model: "gpt-test", day: new Date("2026-01-02"), requests: 1, inputTokens: 5_000_000_000n, costNano: 450n },
    });

    const key = await prisma.apiKey.findUniqueOrThrow({
      where: { keyHash: "h".repeat(64) },
      include: { serverOption: { include: { models: true } }, vendor: true },
    });
    expect(key).toMatchObject({ status: "active", quotaNano: big, metadata: { team: "a" }, rpm: null, revokedAt: null });
    expect(key.vendor.name).toBe("acme");
    expect(key.serverOption.models[0]).toMatchObject({ outputPrice: 700_000n, inputPrice: null });

    const usage = await prisma.usageRecord.findUniqueOrThrow({ where: { requestId: "req_1" } });
    // Token counts are BIGINT (contract section 14): 2^40 comes back exact.
    expect(usage).toMatchObject({ costNano: big - 1n, images: 0, inputTokens: 2n ** 40n, outputTokens: 500n, cachedInputTokens: 0n, startedAt: started });
    expect(typeof usage.costNano).toBe("bigint");

    const [aggregate] = await prisma.usageAggregate.findMany({ where: { apiKeyId: "key_1" } });
    expect(aggregate).toMatchObject({ inputTokens: 5_000_000_000n, costNano: 450n, day: new Date("2026-01-02T00:00:00.000Z") });

    await expect(
      prisma.vendor.create({ data: { id: "vnd_2", name: "acme" } }),
    ).rejects.toMatchObject({ code: "P2002" });
  });
});

describe("pool idle timeout", () => {
  const testDatabase = useTestDatabase({ migrate: false });

  /** The backend serving a query, then again after the pool has sat idle for `idleMs`. */
  async function backendsAcrossIdle(idleTimeoutMs: number, idleMs: number): Promise<[number, number]> {
    const db = createDb({ url: testDatabase().url, poolSize: 1, idleTimeoutMs });
    try {
      const pid = async () => (await db.query<{ pid: number }>("SELECT pg_backend_pid() AS pid"))[0]!.pid;
      const first = await pid();
      await new Promise((resolve) => setTimeout(resolve, idleMs));
      return [first, await pid()];
    } finally {
      await db.close();
    }
  }

  it("closes an idle connection after idleTimeoutMs, and keeps it while it is shorter", async () => {
    const [before, after] = await backendsAcrossIdle(100, 400);
    expect(after).not.toBe(before);
    const [kept, still] = await backendsAcrossIdle(60_000, 400);
    expect(still).toBe(kept);
  });
});
