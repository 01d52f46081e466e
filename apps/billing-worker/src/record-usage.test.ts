import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "@gateway/db";
import { recordUsage, recordUsageBatch, type LedgerEntry } from "./record-usage.ts";
import { billingEvent, createTestEnvironment, FINISHED_AT, seedCatalog, type Seeded, type TestEnvironment } from "./test-fixtures.ts";

let environment: TestEnvironment;
let db: Db;
let seeded: Seeded;

beforeAll(async () => {
  environment = await createTestEnvironment();
  db = createDb({ url: environment.database.url, poolSize: 8 });
  seeded = await seedCatalog(db.prisma);
});

afterAll(async () => {
  await db?.close();
  await environment?.cleanup();
});

/** The sums of usage_records rows, or (`requests` summed) of rollup rows, with the rollups' types. */
const sums = (requests: string) => `${requests}::int AS requests, sum(input_tokens)::bigint AS input_tokens,
  sum(output_tokens)::bigint AS output_tokens, sum(cached_input_tokens)::bigint AS cached_input_tokens,
  sum(cache_write_tokens)::bigint AS cache_write_tokens, sum(reasoning_tokens)::bigint AS reasoning_tokens,
  sum(images)::int AS images, sum(cost_nano)::bigint AS cost_nano`;
const TOTALS = `requests, input_tokens, output_tokens, cached_input_tokens, cache_write_tokens, reasoning_tokens, images, cost_nano`;

/**
 * Every per-day table holds exactly the sums of the ledger rows it covers (so no request is counted
 * twice or missed); returns how many stripes each vendor day and model has.
 */
async function expectRollupsEqualLedger(): Promise<number[]> {
  const byKeyDay = await db.prisma.$queryRawUnsafe(
    `SELECT api_key_id, (finished_at AT TIME ZONE 'UTC')::date AS day, min(vendor_id) AS vendor_id, ${sums("count(*)")} FROM usage_records GROUP BY 1, 2 ORDER BY 1, 2`,
  );
  expect(await db.prisma.$queryRawUnsafe(`SELECT api_key_id, day, vendor_id, ${TOTALS} FROM usage_key_days ORDER BY 1, 2`)).toEqual(byKeyDay);

  const byVendorDay = await db.prisma.$queryRawUnsafe(
    `SELECT r.vendor_id, (r.finished_at AT TIME ZONE 'UTC')::date AS day, r.model, k.server_option_id, ${sums("count(*)")}
     FROM usage_records r JOIN api_keys k ON k.id = r.api_key_id GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`,
  );
  const vendorDays = `SELECT vendor_id, day, model, server_option_id, count(*) AS stripes, ${sums("sum(requests)")}
    FROM usage_vendor_days GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`;
  const summed = (await db.prisma.$queryRawUnsafe(vendorDays)) as { stripes: bigint }[];
  expect(summed.map(({ stripes: _stripes, ...rest }) => rest)).toEqual(byVendorDay);
  const byAggregate = await db.prisma.$queryRawUnsafe(
    `SELECT api_key_id, model, (finished_at AT TIME ZONE 'UTC')::date AS day, ${sums("count(*)")} FROM usage_records GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
  );
  expect(await db.prisma.$queryRawUnsafe(`SELECT api_key_id, model, day, ${TOTALS} FROM usage_aggregates ORDER BY 1, 2, 3`)).toEqual(byAggregate);
  return summed.map((row) => Number(row.stripes));
}

describe("recordUsage", () => {
  it("keeps the per-day rollups equal to the ledger, each request counted once, concurrent jobs included", async () => {
    const events = Array.from({ length: 60 }, (_, index) =>
      billingEvent(seeded, {
        model: index % 3 === 0 ? seeded.plainModel : seeded.model,
        // Three UTC days, some requests on the last millisecond of a day.
        finishedAt: FINISHED_AT + Math.floor(index / 20) * 86_400_000 + (index % 5 === 0 ? 14 * 3_600_000 - 1 : index * 1000),
        usage: { inputTokens: 100 + index, outputTokens: 50 + index, cachedInputTokens: index % 7, cacheWriteTokens: index % 5, reasoningTokens: index % 3, images: index % 2 },
        stream: index % 2 === 0,
      }),
    );
    await Promise.all(events.map((event, index) => recordUsage(db.prisma, event, BigInt(1_000 + index * 333))));
    // Duplicates of a third of them change nothing.
    const outcomes = await Promise.all(events.slice(0, 20).map((event) => recordUsage(db.prisma, event, 999_999n)));
    expect(new Set(outcomes)).toEqual(new Set(["duplicate"]));

    const stripes = await expectRollupsEqualLedger();
    // The requests of a day and model are spread over several stripes.
    expect(Math.max(...stripes)).toBeGreaterThan(1);

    const streamed = await db.prisma.usageRecord.count({ where: { stream: true } });
    expect(streamed).toBe(30);
  });

  it("writes a batch in one statement, each request once: duplicates within the batch or already in the ledger add nothing", async () => {
    const before = await totals();
    const old = billingEvent(seeded, { model: seeded.plainModel });
    expect(await recordUsage(db.prisma, old, 7_000n)).toBe("recorded");
    const a = billingEvent(seeded);
    const b = billingEvent(seeded, { finishedAt: FINISHED_AT + 86_400_000, usage: { inputTokens: 10, outputTokens: 20, cachedInputTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, images: 1 } });
    const c = billingEvent(seeded, { model: seeded.plainModel });
    const entries: LedgerEntry[] = [
      { event: a, costNano: 1_000n },
      { event: old, costNano: 999_999n },
      { event: b, costNano: 2_000n },
      { event: a, costNano: 555_555n },
      { event: c, costNano: 3_000n },
      { event: b, costNano: 2_000n },
    ];
    expect(await recordUsageBatch(db.prisma, entries)).toEqual(["recorded", "duplicate", "recorded", "duplicate", "recorded", "duplicate"]);
    // The same batch again: all duplicates, nothing added.
    expect(await recordUsageBatch(db.prisma, entries)).toEqual(Array(6).fill("duplicate"));

    // The first entry of a request id wins.
    const costs = await db.prisma.usageRecord.findMany({ where: { requestId: { in: [a.requestId, b.requestId, c.requestId, old.requestId] } }, select: { requestId: true, costNano: true } });
    expect(Object.fromEntries(costs.map((row) => [row.requestId, row.costNano]))).toEqual({
      [a.requestId]: 1_000n, [b.requestId]: 2_000n, [c.requestId]: 3_000n, [old.requestId]: 7_000n,
    });
    const after = await totals();
    expect(after.records - before.records).toBe(4n);
    expect(after.requests - before.requests).toBe(4n);
    expect(after.cost - before.cost).toBe(13_000n);
    await expectRollupsEqualLedger();
  });

  it("keeps the batch statement prepared on each connection when prepared statements are on, and never when off", async () => {
    for (const preparedStatements of [true, false]) {
      // One connection, so the second batch runs on the session that holds the first one's statement.
      const single = createDb({ url: environment.database.url, poolSize: 1, preparedStatements });
      try {
        const [a, b] = [billingEvent(seeded), billingEvent(seeded)];
        expect(await recordUsageBatch(single, [{ event: a, costNano: 1_000n }, { event: a, costNano: 9n }])).toEqual(["recorded", "duplicate"]);
        expect(await recordUsageBatch(single, [{ event: b, costNano: 2_000n }, { event: a, costNano: 9n }])).toEqual(["recorded", "duplicate"]);
        const statements = await single.query<{ name: string }>("SELECT name FROM pg_prepared_statements");
        expect(statements.map((row) => row.name)).toEqual(preparedStatements ? ["record_usage_batch"] : []);
        const costs = await single.prisma.usageRecord.findMany({ where: { requestId: { in: [a.requestId, b.requestId] } }, select: { costNano: true }, orderBy: { costNano: "asc" } });
        expect(costs.map((row) => row.costNano)).toEqual([1_000n, 2_000n]);
      } finally {
        await single.close();
      }
    }
    await expectRollupsEqualLedger();
  });

  it("runs overlapping batches at once without a deadlock, each request counted once", async () => {
    const before = await totals();
    const events = Array.from({ length: 120 }, (_, index) =>
      billingEvent(seeded, { model: index % 2 === 0 ? seeded.model : seeded.plainModel, finishedAt: FINISHED_AT + (index % 3) * 86_400_000 }),
    );
    const entries = events.map((event) => ({ event, costNano: 10n }));
    // Four batches over the same requests in different orders, written concurrently.
    const batches = [entries.slice(0, 80), entries.slice(40).reverse(), [...entries].reverse(), entries.filter((_, index) => index % 2 === 1)];
    const outcomes = await Promise.all(batches.map((batch) => recordUsageBatch(db.prisma, batch)));
    const recorded = new Map<string, number>();
    batches.forEach((batch, which) => batch.forEach((entry, index) => {
      if (outcomes[which]![index] === "recorded") recorded.set(entry.event.requestId, (recorded.get(entry.event.requestId) ?? 0) + 1);
    }));
    expect(recorded.size).toBe(120);
    expect(new Set(recorded.values())).toEqual(new Set([1]));
    const after = await totals();
    expect(after.records - before.records).toBe(120n);
    expect(after.requests - before.requests).toBe(120n);
    expect(after.cost - before.cost).toBe(1_200n);
    await expectRollupsEqualLedger();
  });
});

/** Ledger rows, and requests and cost in usage_aggregates. */
async function totals(): Promise<{ records: bigint; requests: bigint; cost: bigint }> {
  const [row] = await db.prisma.$queryRaw<{ records: bigint; requests: bigint; cost: bigint }[]>`
    SELECT (SELECT count(*) FROM usage_records) AS records, (SELECT coalesce(sum(requests), 0)::bigint FROM usage_aggregates) AS requests,
      (SELECT coalesce(sum(cost_nano), 0)::bigint FROM usage_aggregates) AS cost`;
  return row!;
}
