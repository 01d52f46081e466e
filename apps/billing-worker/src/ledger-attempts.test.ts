// The ledger keeps each request's upstream attempts (contract section 20), written by the same
// batch statement as the rest of its row: through the queue, as the proxy sends them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { billingBatchJobId, type Attempt, type BillingEvent } from "@gateway/contracts";
import { createDb, type Db } from "@gateway/db";
import { startBillingWorker, type RunningBillingWorker } from "./server.ts";
import { billingEvent, createTestEnvironment, enqueueBatches, jobSettled, seedCatalog, waitFor, type Seeded, type TestEnvironment } from "./test-fixtures.ts";

let environment: TestEnvironment;
let db: Db;
let seeded: Seeded;
let running: RunningBillingWorker;

beforeAll(async () => {
  environment = await createTestEnvironment();
  db = createDb({ url: environment.database.url, poolSize: 2 });
  seeded = await seedCatalog(db.prisma);
  running = await startBillingWorker(environment.config({ WORKER_CONCURRENCY: "4" }));
});

afterAll(async () => {
  await running?.close();
  await db?.close();
  await environment?.cleanup();
});

const FAILOVER: Attempt[] = [
  { upstream: "sim-primary", upstreamModel: "sim-model", cause: "http_5xx", status: 503, durationMs: 41, ttfbMs: 40 },
  { upstream: "sim-backup", upstreamModel: "sim-model-b", cause: "ok", status: 200, durationMs: 820, ttfbMs: 95 },
];

/** Each request's stored attempts column, as Postgres holds it. */
async function storedAttempts(requestIds: string[]): Promise<Record<string, unknown>> {
  const rows = await db.query<{ request_id: string; attempts: unknown }>("SELECT request_id, attempts FROM usage_records WHERE request_id = ANY($1)", [requestIds]);
  return Object.fromEntries(rows.map((row) => [row.request_id, row.attempts]));
}

describe("billing worker: upstream attempts in the ledger", () => {
  it("stores a batch's attempts per request, none for an event without them, and splits out invalid attempts", async () => {
    const failover = billingEvent(seeded, { upstream: "sim-backup", upstreamModel: "sim-model-b", attempts: FAILOVER });
    const single = billingEvent(seeded, { attempts: [{ upstream: "sim", upstreamModel: "sim-model", cause: "ok", status: 200, durationMs: 300, ttfbMs: 120 }] });
    // A proxy that predates attempts sends no field at all.
    const older = billingEvent(seeded);
    delete (older as Partial<BillingEvent>).attempts;
    // A cause outside ATTEMPT_CAUSES can never be recorded: split out into a failing job of its own.
    const invalid = billingEvent(seeded, { attempts: [{ ...FAILOVER[0]!, cause: "teapot" as Attempt["cause"] }] });
    const events = [failover, single, older, invalid];
    await enqueueBatches(environment.queue, events, events.length);

    const batch = await jobSettled(environment.queue, billingBatchJobId(events));
    expect(batch.state).toBe("completed");
    expect(batch.job.returnvalue).toMatchObject({ events: 4, recorded: 3, splitOut: [invalid.requestId] });
    expect((await jobSettled(environment.queue, invalid.requestId)).job.failedReason).toMatch(/attempts\.0\.cause/);

    expect(await storedAttempts(events.map((event) => event.requestId))).toEqual({
      [failover.requestId]: FAILOVER,
      [single.requestId]: single.attempts,
      [older.requestId]: null,
    });
    // Prisma reads the column as the same JSON.
    const record = await db.prisma.usageRecord.findUniqueOrThrow({ where: { requestId: failover.requestId } });
    expect(record.attempts).toEqual(FAILOVER);
  });

  it("keeps the first write's attempts when an event is delivered again", async () => {
    const event = billingEvent(seeded, { attempts: FAILOVER });
    await enqueueBatches(environment.queue, [event], 1);
    await waitFor(async () => (await storedAttempts([event.requestId]))[event.requestId] !== undefined, { what: "the first write" });
    const again = { ...event, attempts: [FAILOVER[1]!] };
    await environment.queue.add("usage", again, { jobId: `${event.requestId}-again` });
    expect((await jobSettled(environment.queue, `${event.requestId}-again`)).job.returnvalue).toMatchObject({ outcome: "duplicate" });
    expect(await storedAttempts([event.requestId])).toEqual({ [event.requestId]: FAILOVER });
  });
});
