import { describe, expect, it } from "vitest";
import { createLogger } from "@gateway/logger";
import { LedgerBatcher, type LedgerBatcherOptions } from "./ledger-batcher.ts";
import type { LedgerEntry, RecordOutcome } from "./record-usage.ts";
import { billingEvent, type Seeded } from "./test-fixtures.ts";

const seeded: Seeded = { vendorId: "vnd_1", apiKeyId: "key_1", serverOption: "standard", model: "gpt-test", plainModel: "gpt-plain" };
const PERMANENT = new Error("permanent");

/** A batcher over a fake ledger that records each write's request ids; `poison` ids fail a write permanently. */
function batcher(options: Partial<LedgerBatcherOptions> & { poison?: Set<string>; failWith?: Error } = {}) {
  const writes: string[][] = [];
  const seen = new Set<string>();
  const instance = new LedgerBatcher({
    async write(entries: readonly LedgerEntry[]): Promise<RecordOutcome[]> {
      writes.push(entries.map((entry) => entry.event.requestId));
      if (options.failWith) throw options.failWith;
      if (entries.some((entry) => options.poison?.has(entry.event.requestId))) throw PERMANENT;
      return entries.map((entry) => (seen.has(entry.event.requestId) ? "duplicate" : (seen.add(entry.event.requestId), "recorded")));
    },
    isPermanent: (error) => error === PERMANENT,
    maxSize: 4,
    maxWaitMs: 30,
    capacity: 100,
    logger: createLogger({ name: "test", level: "silent" }),
    ...options,
  });
  return { instance, writes };
}

const events = (count: number) => Array.from({ length: count }, () => billingEvent(seeded));

describe("LedgerBatcher", () => {
  it("writes a full batch at once and the rest after the wait, each entry getting its own outcome", async () => {
    const { instance, writes } = batcher({ maxWaitMs: 200 });
    const batch = events(6);
    const started = Date.now();
    const outcomes = batch.map((event) => instance.record(event, 1n));
    await Promise.all(outcomes.slice(0, 4));
    expect(Date.now() - started).toBeLessThan(150);
    expect(writes).toEqual([batch.slice(0, 4).map((event) => event.requestId)]);
    expect(await Promise.all(outcomes)).toEqual(Array(6).fill("recorded"));
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(writes).toEqual([batch.slice(0, 4).map((event) => event.requestId), batch.slice(4).map((event) => event.requestId)]);
  });

  it("writes without waiting once every job the worker may hold is in a batch", async () => {
    const { instance, writes } = batcher({ maxSize: 50, capacity: 3, maxWaitMs: 10_000 });
    const started = Date.now();
    expect(await Promise.all(events(3).map((event) => instance.record(event, 1n)))).toEqual(["recorded", "recorded", "recorded"]);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(writes.map((write) => write.length)).toEqual([3]);
  });

  it("counts a batch job's many events as one job against the worker's capacity", async () => {
    const { instance, writes } = batcher({ maxSize: 50, capacity: 3, maxWaitMs: 10_000 });
    const started = Date.now();
    // One job of 10 events: 1 of 3 jobs held, so it waits for company (counted as entries, 10 >= 3, it would not).
    const many = instance.recordMany(events(10).map((event) => ({ event, costNano: 1n })));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(writes).toEqual([]);
    // Two single-event jobs: every job the worker may hold is now waiting, so all go at once, in one statement.
    const singles = events(2).map((event) => instance.record(event, 1n));
    expect((await many).map((result) => result.status)).toEqual(Array(10).fill("fulfilled"));
    expect(await Promise.all(singles)).toEqual(["recorded", "recorded"]);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(writes.map((write) => write.length)).toEqual([12]);
  });

  it("writes every full batch of a large batch job at once", async () => {
    const { instance, writes } = batcher({ maxSize: 4, capacity: 100, maxWaitMs: 10_000 });
    const started = Date.now();
    const results = await instance.recordMany(events(8).map((event) => ({ event, costNano: 1n })));
    expect(results.every((result) => result.status === "fulfilled" && result.value === "recorded")).toBe(true);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(writes.map((write) => write.length)).toEqual([4, 4]);
  });

  it("fails every entry of a batch on a transient error, to be retried", async () => {
    const outage = new Error("connection refused");
    const { instance, writes } = batcher({ failWith: outage });
    const results = await Promise.allSettled(events(4).map((event) => instance.record(event, 1n)));
    expect(results.map((result) => (result.status === "rejected" ? result.reason : result.value))).toEqual([outage, outage, outage, outage]);
    expect(writes).toHaveLength(1);
  });

  it("writes a batch that failed on one entry's permanent error again entry by entry: only that entry fails", async () => {
    const batch = events(4);
    const poison = batch[2]!.requestId;
    const { instance, writes } = batcher({ poison: new Set([poison]) });
    const results = await Promise.allSettled(batch.map((event) => instance.record(event, 1n)));
    expect(results.map((result) => (result.status === "rejected" ? result.reason : result.value))).toEqual(["recorded", "recorded", PERMANENT, "recorded"]);
    expect(writes.map((write) => write.length)).toEqual([4, 1, 1, 1, 1]);
  });
});
