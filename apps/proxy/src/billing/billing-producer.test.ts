// The billing producer on a real BullMQ queue: events are gathered into batch jobs, not one job per
// Redis round trip, full batches go at once, and every event is queued exactly once.
import { randomUUID } from "node:crypto";
import { Queue } from "bullmq";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { BILLING_QUEUE, billingEventsOf, type BillingEvent } from "@gateway/contracts";
import { createLogger } from "@gateway/logger";
import { resolveTestServices } from "@gateway/testing";
import { BATCH_SIZE, BillingProducer, FLUSH_DELAY_MS, QUIET_MS } from "./billing-producer.ts";

const queues: Queue[] = [];
let redisUrl: string;
const logger = createLogger({ name: "billing-producer-test", level: "silent" });

beforeAll(async () => {
  redisUrl = (await resolveTestServices()).redisUrl;
});
afterAll(async () => {
  for (const queue of queues) {
    await queue.obliterate({ force: true });
    await queue.close();
  }
});

function newQueue(): Queue {
  const url = new URL(redisUrl);
  const queue = new Queue(BILLING_QUEUE, { connection: { host: url.hostname, port: Number(url.port || 6379) }, prefix: `test-${randomUUID().slice(0, 8)}` });
  queues.push(queue);
  return queue;
}

function event(): BillingEvent {
  return {
    requestId: `req_${randomUUID().replaceAll("-", "")}`,
    apiKeyId: "key_test",
    vendorId: "vnd_test",
    serverOption: "standard",
    model: "m",
    endpoint: "chat.completions",
    upstream: "sim",
    upstreamModel: "m",
    status: "ok",
    estimated: false,
    usage: { inputTokens: 10, outputTokens: 5, cachedInputTokens: 0, cacheWriteTokens: 0, cacheWrite1hTokens: 0, reasoningTokens: 0, images: 0, webSearchRequests: 0 },
    startedAt: Date.now() - 5,
    finishedAt: Date.now(),
    ttfbMs: 1,
  };
}

async function queuedEvents(queue: Queue): Promise<{ jobs: number; requestIds: string[] }> {
  const jobs = await queue.getJobs(["waiting", "delayed", "prioritized", "active", "completed"]);
  return { jobs: jobs.length, requestIds: jobs.flatMap((job) => billingEventsOf(job.data).map((one) => (one as BillingEvent).requestId)) };
}

describe("BillingProducer", () => {
  it("under steady load sends one job per flush delay, not one per round trip, and queues each event once", async () => {
    const queue = newQueue();
    const producer = new BillingProducer(queue, logger, 100_000);
    const recorded: string[] = [];
    const started = Date.now();
    // An event every millisecond for 300 ms: the adds take about a millisecond on local Redis, so a
    // producer that sent whatever came during each add would send about one job per round trip.
    while (Date.now() - started < 300) {
      const one = event();
      recorded.push(one.requestId);
      producer.record(one);
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    const elapsed = Date.now() - started;
    await producer.close(5_000);
    const queued = await queuedEvents(queue);
    expect(queued.requestIds.sort()).toEqual(recorded.sort());
    // The first batch waits FLUSH_DELAY_MS for company, and every next one starts FLUSH_DELAY_MS or
    // more after the one before; the last may be sent early by close().
    expect(queued.jobs).toBeLessThanOrEqual(Math.floor(elapsed / FLUSH_DELAY_MS) + 1);
  });

  it("splits a backlog into full batches, each event in one of them", async () => {
    const queue = newQueue();
    const producer = new BillingProducer(queue, logger, 100_000);
    const recorded = Array.from({ length: BATCH_SIZE * 3 }, () => event());
    for (const one of recorded) producer.record(one);
    // Three full batches: the drain loop sends each as soon as the one before is acknowledged.
    await producer.flush();
    const queued = await queuedEvents(queue);
    expect(queued.jobs).toBe(3);
    const sizes = (await queue.getJobs(["waiting", "completed"])).map((job) => billingEventsOf(job.data).length);
    expect(sizes).toEqual([BATCH_SIZE, BATCH_SIZE, BATCH_SIZE]);
    expect(queued.requestIds.sort()).toEqual(recorded.map((one) => one.requestId).sort());
    await producer.close(5_000);
  });

  describe("when a batch is written (timers and the clock faked; the queue records each add)", () => {
    beforeEach(() => {
      vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setImmediate", "Date"] });
    });
    afterEach(() => {
      vi.useRealTimers();
    });

    /** A queue that records each add: when (ms on the fake clock since it was made) and which events. */
    function recordingQueue() {
      const start = Date.now();
      const adds: Array<{ at: number; requestIds: string[] }> = [];
      const queue = {
        add: async (_name: string, data: { events: BillingEvent[] }) => {
          adds.push({ at: Date.now() - start, requestIds: data.events.map((one) => one.requestId) });
          return {};
        },
      };
      return { adds, producer: new BillingProducer(queue as unknown as Queue, logger, 100_000) };
    }

    it("while responses keep finishing, a due batch goes just after the next one finishes, not inside a request", async () => {
      const { adds, producer } = recordingQueue();
      const first = event();
      producer.record(first);
      await vi.advanceTimersByTimeAsync(FLUSH_DELAY_MS - 1);
      const second = event();
      producer.record(second);
      // The batch is due; a response finished 1 ms ago, so the write waits for the next one to finish.
      await vi.advanceTimersByTimeAsync(QUIET_MS - 2);
      expect(adds).toEqual([]);
      const third = event();
      producer.record(third);
      expect(adds).toEqual([]); // not inside record: after the response's turn
      await vi.advanceTimersByTimeAsync(0);
      expect(adds).toEqual([{ at: FLUSH_DELAY_MS + QUIET_MS - 3, requestIds: [first.requestId, second.requestId, third.requestId] }]);
      await producer.close(1_000);
    });

    it("a due batch whose next response does not come goes QUIET_MS late at most", async () => {
      const { adds, producer } = recordingQueue();
      producer.record(event());
      await vi.advanceTimersByTimeAsync(FLUSH_DELAY_MS - 1);
      producer.record(event());
      await vi.advanceTimersByTimeAsync(QUIET_MS);
      expect(adds).toEqual([]);
      await vi.advanceTimersByTimeAsync(1);
      expect(adds.map((add) => [add.at, add.requestIds.length])).toEqual([[FLUSH_DELAY_MS + QUIET_MS, 2]]);
      await producer.close(1_000);
    });

    it("with no response finishing lately, a batch goes when its delay is up; the next one a delay after it", async () => {
      const { adds, producer } = recordingQueue();
      producer.record(event());
      await vi.advanceTimersByTimeAsync(FLUSH_DELAY_MS);
      expect(adds.map((add) => add.at)).toEqual([FLUSH_DELAY_MS]);
      // One recorded during the wait after a write: it waits out the rest of that delay, not a new one.
      await vi.advanceTimersByTimeAsync(QUIET_MS + 10);
      producer.record(event());
      await vi.advanceTimersByTimeAsync(FLUSH_DELAY_MS - 1);
      expect(adds.map((add) => add.at)).toEqual([FLUSH_DELAY_MS]);
      await vi.advanceTimersByTimeAsync(QUIET_MS);
      expect(adds.map((add) => add.at)).toEqual([FLUSH_DELAY_MS, 2 * FLUSH_DELAY_MS + QUIET_MS + 10]);
      await producer.close(1_000);
    });

    it("flush and a full batch end the wait at once", async () => {
      const { adds, producer } = recordingQueue();
      producer.record(event());
      await vi.advanceTimersByTimeAsync(3);
      await producer.flush();
      expect(adds.map((add) => [add.at, add.requestIds.length])).toEqual([[3, 1]]);
      for (let index = 0; index < BATCH_SIZE; index += 1) producer.record(event());
      await vi.advanceTimersByTimeAsync(0);
      expect(adds.map((add) => [add.at, add.requestIds.length])).toEqual([[3, 1], [3, BATCH_SIZE]]);
      await producer.close(1_000);
    });
  });
});
