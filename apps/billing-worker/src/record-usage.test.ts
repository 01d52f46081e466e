import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "@gateway/db";
import { recordUsage } from "./record-usage.ts";
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
    // The requests of a day and model are spread over several stripes.
    expect(Math.max(...summed.map((row) => Number(row.stripes)))).toBeGreaterThan(1);

    const streamed = await db.prisma.usageRecord.count({ where: { stream: true } });
    expect(streamed).toBe(30);
  });
});
