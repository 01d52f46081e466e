// Webhook events of quota and budget crossings, through the real worker: events queued as the proxy
// queues them, written in several ledger batches after each crossing, each crossing one event.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatUsd, newId, type BillingEvent } from "@gateway/contracts";
import { createDb, type Db } from "@gateway/db";
import { startBillingWorker, type RunningBillingWorker } from "./server.ts";
import { billingEvent, createTestEnvironment, enqueueBatches, EVENT_COST_NANO, seedCatalog, waitFor, type Seeded, type TestEnvironment } from "./test-fixtures.ts";

let environment: TestEnvironment;
let db: Db;
let seeded: Seeded;
let running: RunningBillingWorker;
let webhookId: string;

beforeAll(async () => {
  environment = await createTestEnvironment();
  db = createDb({ url: environment.database.url, poolSize: 4 });
  seeded = await seedCatalog(db.prisma);
  webhookId = `wh_${randomUUID().replaceAll("-", "")}`;
  await db.prisma.webhook.create({
    data: { id: webhookId, vendorId: seeded.vendorId, url: "https://8.8.8.8/hook", events: ["key.quota_low", "key.quota_exhausted", "key.budget_exceeded"], secretCiphertext: "unused" },
  });
  // One event per ledger batch: every event after a crossing is another batch that sees it.
  running = await startBillingWorker(environment.config({ WORKER_CONCURRENCY: "1", WORKER_BATCH_SIZE: "1", WORKER_BATCH_WAIT_MS: "1" }));
});

afterAll(async () => {
  await running?.close();
  await db?.close();
  await environment?.cleanup();
});

async function deliveries(event: string) {
  return db.prisma.webhookDelivery.findMany({ where: { webhookId, event }, orderBy: { createdAt: "asc" } });
}

/** Queues the events one job each and waits until they are all in the ledger and the crossing checks after them have run. */
async function spend(events: BillingEvent[]): Promise<void> {
  await enqueueBatches(environment.queue, events, 1);
  const ids = events.map((event) => event.requestId);
  await waitFor(async () => (await db.prisma.usageRecord.count({ where: { requestId: { in: ids } } })) === ids.length, { what: "the events to be recorded" });
  // The crossing check runs after the batch commits, off the job's path.
  await new Promise((resolve) => setTimeout(resolve, 400));
}

const events = (count: number, overrides: Partial<BillingEvent> = {}) => Array.from({ length: count }, () => billingEvent(seeded, overrides));

describe("quota and budget crossings", () => {
  it("fires key.quota_low at 80 % and key.quota_exhausted at 100 % once each, however many batches follow; a top-up is a new crossing", async () => {
    const quota = 10n * EVENT_COST_NANO;
    await db.prisma.apiKey.update({ where: { id: seeded.apiKeyId }, data: { quotaNano: quota } });

    await spend(events(7));
    expect(await deliveries("key.quota_low")).toHaveLength(0);

    await spend(events(1)); // 80 %
    const low = await deliveries("key.quota_low");
    expect(low).toHaveLength(1);
    expect(low[0]!.status).toBe("pending");
    const body = JSON.parse(low[0]!.body);
    expect(body).toMatchObject({
      id: low[0]!.eventId,
      type: "key.quota_low",
      data: { key_id: seeded.apiKeyId, prefix: "sk-test", quota: formatUsd(quota), used: formatUsd(8n * EVENT_COST_NANO), remaining: formatUsd(2n * EVENT_COST_NANO) },
    });
    expect(Date.parse(body.created_at)).not.toBeNaN();

    await spend(events(1)); // 90 %
    expect(await deliveries("key.quota_low")).toHaveLength(1);
    expect(await deliveries("key.quota_exhausted")).toHaveLength(0);

    await spend(events(1)); // 100 %
    await spend(events(4)); // four more batches past it
    expect(await deliveries("key.quota_low")).toHaveLength(1);
    const exhausted = await deliveries("key.quota_exhausted");
    expect(exhausted).toHaveLength(1);
    // The body is the crossing's, as first emitted: the batches after it changed nothing.
    expect(JSON.parse(exhausted[0]!.body).data).toMatchObject({ quota: formatUsd(quota), used: formatUsd(10n * EVENT_COST_NANO), remaining: "0.000000" });

    // A top-up to 20 x: 14 of 20 is 70 %, nothing; at 16 of 20 the key is low again, a new event.
    await db.prisma.apiKey.update({ where: { id: seeded.apiKeyId }, data: { quotaNano: 20n * EVENT_COST_NANO } });
    await spend(events(1));
    expect(await deliveries("key.quota_low")).toHaveLength(1);
    await spend(events(2));
    await spend(events(2));
    const lows = await deliveries("key.quota_low");
    expect(lows).toHaveLength(2);
    expect(new Set(lows.map((row) => row.eventId)).size).toBe(2);
    expect(await deliveries("key.quota_exhausted")).toHaveLength(1);
  });

  it("fires key.budget_exceeded once per budget period when the period's spend reaches the budget", async () => {
    const key = await db.prisma.apiKey.create({
      data: {
        id: newId("key"), vendorId: seeded.vendorId, serverOptionId: "so_standard", name: "budgeted", keyHash: randomUUID(), prefix: "sk-bdgt",
        budgetNano: 2n * EVENT_COST_NANO, budgetPeriod: "day",
      },
    });
    const now = Date.now();
    const today = (count: number) => events(count, { apiKeyId: key.id, startedAt: now - 1_000, finishedAt: now });
    // Spend on an earlier day does not count in today's period.
    await spend(events(5, { apiKeyId: key.id }));
    await spend(today(1));
    expect(await deliveries("key.budget_exceeded")).toHaveLength(0);
    await spend(today(1));
    await spend(today(3));
    const exceeded = await deliveries("key.budget_exceeded");
    expect(exceeded).toHaveLength(1);
    const body = JSON.parse(exceeded[0]!.body);
    expect(body.data).toMatchObject({ key_id: key.id, budget: { limit: formatUsd(2n * EVENT_COST_NANO), period: "day", used: formatUsd(2n * EVENT_COST_NANO) } });
    const start = new Date(now);
    start.setUTCHours(0, 0, 0, 0);
    expect(body.data.budget.period_start).toBe(start.toISOString());
    expect(body.data.budget.resets_at).toBe(new Date(start.getTime() + 86_400_000).toISOString());
  });

  it("queues nothing for a vendor without webhooks", async () => {
    const vendor = await db.prisma.vendor.create({ data: { id: newId("vnd"), name: "quiet" } });
    const key = await db.prisma.apiKey.create({
      data: { id: newId("key"), vendorId: vendor.id, serverOptionId: "so_standard", name: "quiet", keyHash: randomUUID(), prefix: "sk-quie", quotaNano: 1n },
    });
    const before = await db.prisma.webhookDelivery.count();
    await spend(events(2, { apiKeyId: key.id, vendorId: vendor.id }));
    expect(await db.prisma.webhookDelivery.count()).toBe(before);
  });
});
