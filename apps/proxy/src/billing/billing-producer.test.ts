// The billing producer on a real BullMQ queue: events are gathered into batch jobs, not one job per
// Redis round trip, full batches go at once, and every event is queued exactly once.
import { randomUUID } from "node:crypto";
import { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BILLING_QUEUE, billingEventsOf, type BillingEvent } from "@gateway/contracts";
import { createLogger } from "@gateway/logger";
import { resolveTestServices } from "@gateway/testing";
import { BATCH_SIZE, BillingProducer, FLUSH_DELAY_MS } from "./billing-producer.ts";

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
});
