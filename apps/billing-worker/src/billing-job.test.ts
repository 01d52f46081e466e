import { UnrecoverableError } from "bullmq";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createDb, type Db } from "@gateway/db";
import { createLogger } from "@gateway/logger";
import { createBillingJobHandler, type BillingEventResult, type BillingJobLike } from "./billing-job.ts";
import { PriceLoader } from "./price-loader.ts";
import { billingEvent, createTestEnvironment, seedCatalog, type Seeded, type TestEnvironment } from "./test-fixtures.ts";

let environment: TestEnvironment;
let db: Db;
let seeded: Seeded;
/** Single-event jobs only here (batch-jobs.test.ts has the batches). */
let handle: (job: BillingJobLike) => Promise<BillingEventResult>;

beforeAll(async () => {
  environment = await createTestEnvironment();
  db = createDb({ url: environment.database.url, poolSize: 8 });
  seeded = await seedCatalog(db.prisma);
  const prices = new PriceLoader(db.prisma, { ttlMs: 5_000 });
  handle = createBillingJobHandler({ prisma: db.prisma, prices, logger: createLogger({ name: "test", level: "silent" }) }) as (job: BillingJobLike) => Promise<BillingEventResult>;
});

afterAll(async () => {
  await db?.close();
  await environment?.cleanup();
});

beforeEach(async () => {
  await db.prisma.usageAggregate.deleteMany();
  await db.prisma.usageRecord.deleteMany();
});

async function aggregates() {
  return db.prisma.usageAggregate.findMany({ orderBy: [{ model: "asc" }, { day: "asc" }] });
}

describe("billing job handler", () => {
  it("records the request and adds it to the day's aggregate at the exact cost", async () => {
    const event = billingEvent(seeded);
    const result = await handle({ id: event.requestId, data: event });
    // input: 600 x 200_000 (override) + cached: 400 x 75_000 x 1.25 + output: 500 x 600_000 x 1.25 pico
    expect(result).toEqual({ requestId: event.requestId, outcome: "recorded", costNano: "535938", priced: true });

    const record = await db.prisma.usageRecord.findUniqueOrThrow({ where: { requestId: event.requestId } });
    expect(record).toMatchObject({
      apiKeyId: seeded.apiKeyId,
      vendorId: seeded.vendorId,
      model: "gpt-test",
      upstream: "sim",
      upstreamModel: "sim-model",
      endpoint: "chat.completions",
      status: "ok",
      estimated: false,
      inputTokens: 1000n,
      outputTokens: 500n,
      cachedInputTokens: 400n,
      cacheWriteTokens: 100n,
      reasoningTokens: 200n,
      images: 0,
      costNano: 535_938n,
      ttfbMs: 120,
    });
    expect(record.startedAt.getTime()).toBe(event.startedAt);
    expect(record.finishedAt.getTime()).toBe(event.finishedAt);

    expect(await aggregates()).toEqual([
      expect.objectContaining({
        apiKeyId: seeded.apiKeyId,
        model: "gpt-test",
        day: new Date("2026-11-22T00:00:00Z"),
        requests: 1,
        inputTokens: 1000n,
        outputTokens: 500n,
        cachedInputTokens: 400n,
        images: 0,
        costNano: 535_938n,
      }),
    ]);
  });

  it("sums requests of one key, model and UTC day, and splits days at UTC midnight", async () => {
    const plain = { model: seeded.plainModel };
    await handle({ data: billingEvent(seeded, plain) });
    await handle({ data: billingEvent(seeded, { ...plain, usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, images: 2 } }) });
    const lastMillisecond = Date.UTC(2026, 10, 22, 23, 59, 59, 999);
    await handle({ data: billingEvent(seeded, { ...plain, finishedAt: lastMillisecond, startedAt: lastMillisecond - 10 }) });
    await handle({ data: billingEvent(seeded, { ...plain, finishedAt: lastMillisecond + 1, startedAt: lastMillisecond - 10 }) });

    const rows = await aggregates();
    expect(rows.map((row) => [row.day.toISOString().slice(0, 10), row.requests, row.images, row.costNano])).toEqual([
      // 2 x 529_688 (list x 1.25; the 100 cache writes at 1.25 x input) + 2 images x 40_000_000_000 x 1.25 pico
      ["2026-11-22", 3, 2, 529_688n * 2n + 100_000_000n],
      ["2026-11-23", 1, 0, 529_688n],
    ]);
  });

  it("is a no-op when run again on an event it already recorded (a crash between commit and ack)", async () => {
    const event = billingEvent(seeded);
    expect((await handle({ id: event.requestId, data: event })).outcome).toBe("recorded");
    // The job is redelivered after the worker died before acknowledging it.
    expect((await handle({ id: event.requestId, data: event })).outcome).toBe("duplicate");
    expect((await handle({ id: `${event.requestId}:redelivered`, data: { ...event } })).outcome).toBe("duplicate");

    expect(await db.prisma.usageRecord.count()).toBe(1);
    const [aggregate] = await aggregates();
    expect(aggregate).toMatchObject({ requests: 1, inputTokens: 1000n, costNano: 535_938n });
  });

  it("counts an event once when two workers process it at the same time", async () => {
    const event = billingEvent(seeded);
    const results = await Promise.all(Array.from({ length: 8 }, () => handle({ data: event })));
    expect(results.map((result) => result.outcome).sort()).toEqual(["duplicate", "duplicate", "duplicate", "duplicate", "duplicate", "duplicate", "duplicate", "recorded"]);
    expect(await db.prisma.usageRecord.count()).toBe(1);
    expect((await aggregates())[0]).toMatchObject({ requests: 1, costNano: 535_938n });
  });

  it("adds concurrent distinct events to one aggregate without losing an update", async () => {
    await Promise.all(Array.from({ length: 50 }, () => handle({ data: billingEvent(seeded) })));
    expect(await aggregates()).toEqual([expect.objectContaining({ requests: 50, inputTokens: 50_000n, costNano: 50n * 535_938n })]);
  });

  it("records an error with zero usage at cost 0, one record per request", async () => {
    const event = billingEvent(seeded, {
      status: "error",
      upstream: null,
      upstreamModel: null,
      ttfbMs: null,
      usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, images: 0 },
    });
    expect(await handle({ data: event })).toMatchObject({ outcome: "recorded", costNano: "0", priced: true });
    expect(await db.prisma.usageRecord.findUniqueOrThrow({ where: { requestId: event.requestId } })).toMatchObject({
      status: "error",
      upstream: null,
      ttfbMs: null,
      costNano: 0n,
    });
    expect(await aggregates()).toEqual([expect.objectContaining({ requests: 1, inputTokens: 0n, costNano: 0n })]);
  });

  it("records a request for an unknown model or server option at cost 0", async () => {
    const unknownModel = billingEvent(seeded, { model: "no-such-model" });
    const unknownOption = billingEvent(seeded, { serverOption: "no-such-option" });
    expect(await handle({ data: unknownModel })).toMatchObject({ outcome: "recorded", costNano: "0", priced: false });
    expect(await handle({ data: unknownOption })).toMatchObject({ outcome: "recorded", costNano: "0", priced: false });
    expect(await db.prisma.usageRecord.count()).toBe(2);
    const rows = await aggregates();
    expect(rows.map((row) => [row.model, row.requests, row.costNano])).toEqual([
      ["gpt-test", 1, 0n],
      ["no-such-model", 1, 0n],
    ]);
  });

  it("rejects an invalid payload as unrecoverable and writes nothing", async () => {
    const valid = billingEvent(seeded);
    for (const data of [null, "text", { ...valid, requestId: "nope" }, { ...valid, usage: { ...valid.usage, inputTokens: -1 } }]) {
      await expect(handle({ id: "bad", data })).rejects.toBeInstanceOf(UnrecoverableError);
    }
    expect(await db.prisma.usageRecord.count()).toBe(0);
  });

  it("rejects an event no retry can record (unknown api key, out-of-range values) as unrecoverable", async () => {
    // Counts are exact only below 2^53 (a JSON number); the ledger's BIGINT columns take any count below that.
    const tooMany = { ...billingEvent(seeded).usage, outputTokens: 2 ** 53 };
    for (const event of [
      billingEvent(seeded, { apiKeyId: "key_missing" }),
      billingEvent(seeded, { usage: tooMany }),
      billingEvent(seeded, { finishedAt: 9e15 }),
    ]) {
      await expect(handle({ data: event })).rejects.toBeInstanceOf(UnrecoverableError);
    }
    expect(await db.prisma.usageRecord.count()).toBe(0);
    expect(await aggregates()).toEqual([]);
  });
});
