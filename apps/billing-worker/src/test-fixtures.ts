// Shared by this app's tests: real Postgres and Redis, seeded directly with Prisma.
import { randomUUID } from "node:crypto";
import { Queue, type Job } from "bullmq";
import { BILLING_JOB, BILLING_JOB_OPTIONS, BILLING_QUEUE, billingBatchJobId, newId, type BillingBatch, type BillingEvent } from "@gateway/contracts";
import type { PrismaClient } from "@gateway/db";
import { connectRedis, redisKeys } from "@gateway/redis-store";
import { createTestDatabase, resolveTestServices, type TestDatabase } from "@gateway/testing";
import { loadBillingWorkerConfig, type BillingWorkerConfig } from "./config.ts";

/** The producer's job options (apps/proxy/src/billing/billing-producer.ts). */
export const PRODUCER_JOB_OPTIONS = BILLING_JOB_OPTIONS;

/**
 * Queues `events` as the proxy does (apps/proxy/src/billing/billing-producer.ts): `usage-batch`
 * jobs of `perJob` events each, under their batch job ids. Returns the number of jobs.
 */
export async function enqueueBatches(queue: Queue, events: BillingEvent[], perJob: number): Promise<number> {
  const jobs = [];
  for (let start = 0; start < events.length; start += perJob) {
    const slice = events.slice(start, start + perJob);
    const data: BillingBatch = { events: slice };
    jobs.push({ name: BILLING_JOB.batch, data, opts: { ...PRODUCER_JOB_OPTIONS, jobId: billingBatchJobId(slice) } });
  }
  await queue.addBulk(jobs);
  return jobs.length;
}

export interface TestEnvironment {
  database: TestDatabase;
  redisUrl: string;
  /** A random prefix of this test file's Redis keys. */
  prefix: string;
  /** Env of a worker on this database and prefix, for `loadBillingWorkerConfig` or a child process. */
  env: Record<string, string>;
  config(overrides?: Record<string, string>): BillingWorkerConfig;
  /** A queue exactly like the proxy's: same name, same prefix. */
  queue: Queue;
  cleanup(): Promise<void>;
}

export async function createTestEnvironment(): Promise<TestEnvironment> {
  const [services, database] = await Promise.all([resolveTestServices(), createTestDatabase()]);
  const prefix = `test-${randomUUID()}`;
  const env = {
    DATABASE_URL: database.url,
    DB_POOL_SIZE: "8",
    REDIS_URL: services.redisUrl,
    REDIS_PREFIX: prefix,
    PORT: "0",
    LOG_LEVEL: "silent",
  };
  const queueConnection = connectRedis(services.redisUrl, { name: "billing-worker-test" });
  const queue = new Queue(BILLING_QUEUE, { connection: queueConnection, prefix: redisKeys(prefix).queuePrefix });
  return {
    database,
    redisUrl: services.redisUrl,
    prefix,
    env,
    config: (overrides = {}) => loadBillingWorkerConfig({ ...env, ...overrides }),
    queue,
    async cleanup() {
      await queue.close();
      await deleteKeys(queueConnection, `${prefix}:*`);
      queueConnection.disconnect();
      await database.drop();
    },
  };
}

async function deleteKeys(redis: ReturnType<typeof connectRedis>, pattern: string): Promise<void> {
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", pattern, "COUNT", 1000);
    if (keys.length > 0) await redis.del(...keys);
    cursor = next;
  } while (cursor !== "0");
}

/** Prices of the seeded catalog, in pico-USD per unit. */
export const PRICES = {
  model: {
    inputPrice: 150_000n,
    outputPrice: 600_000n,
    cachedInputPrice: 75_000n,
    cacheWritePrice: 187_500n,
    cacheWrite1hPrice: 300_000n,
    imagePrice: 40_000_000_000n,
    requestPrice: 0n,
    webSearchPrice: 0n,
  },
  /** The server option's override for `gpt-test`: input only; the rest is multiplied. */
  override: { inputPrice: 200_000n, outputPrice: null, cachedInputPrice: null, cacheWritePrice: null, cacheWrite1hPrice: null, imagePrice: null, requestPrice: null, webSearchPrice: null },
  multiplierBps: 12_500,
};

/**
 * What `billingEvent`'s usage costs on `gpt-test` (1.25x, input overridden), in scaled units of
 * 1/10000 pico: 500 uncached x 200_000 x 10^4 + 400 cached x 75_000 x 12_500 + 100 5-minute writes
 * x 187_500 x 12_500 + 500 output x 600_000 x 12_500 = 5_359_375 x 10^6, / 10^7 = 535_937.5 nano,
 * rounded half up once.
 */
export const EVENT_COST_NANO = 535_938n;

export interface Seeded {
  vendorId: string;
  apiKeyId: string;
  serverOption: string;
  /** Priced through a ServerOptionModel row with an input override. */
  model: string;
  /** Not in the server option: list price x multiplier. */
  plainModel: string;
}

/** A vendor, a server option (1.25x), two models (one with an override), and an api key. */
export async function seedCatalog(prisma: PrismaClient): Promise<Seeded> {
  const vendor = await prisma.vendor.create({ data: { id: newId("vnd"), name: "acme" } });
  const option = await prisma.serverOption.create({ data: { id: "so_standard", name: "standard", priceMultiplierBps: PRICES.multiplierBps } });
  await prisma.vendorServerOption.create({ data: { vendorId: vendor.id, serverOptionId: option.id } });
  const model = { displayName: "Test", ownedBy: "test", ...PRICES.model };
  await prisma.model.create({ data: { id: "mdl_gpt_test", name: "gpt-test", ...model } });
  await prisma.model.create({ data: { id: "mdl_gpt_plain", name: "gpt-plain", ...model } });
  await prisma.serverOptionModel.create({ data: { serverOptionId: option.id, modelId: "mdl_gpt_test", ...PRICES.override } });
  const key = await prisma.apiKey.create({
    data: { id: newId("key"), vendorId: vendor.id, serverOptionId: option.id, name: "test", keyHash: randomUUID(), prefix: "sk-test" },
  });
  return { vendorId: vendor.id, apiKeyId: key.id, serverOption: option.name, model: "gpt-test", plainModel: "gpt-plain" };
}

/** 2026-11-22T10:00:00Z */
export const FINISHED_AT = Date.UTC(2026, 10, 22, 10, 0, 0);

export function billingEvent(seeded: Seeded, overrides: Partial<BillingEvent> = {}): BillingEvent {
  return {
    requestId: newId("req"),
    apiKeyId: seeded.apiKeyId,
    vendorId: seeded.vendorId,
    serverOption: seeded.serverOption,
    model: seeded.model,
    endpoint: "chat.completions",
    upstream: "sim",
    upstreamModel: "sim-model",
    status: "ok",
    estimated: false,
    usage: { inputTokens: 1000, outputTokens: 500, cachedInputTokens: 400, cacheWriteTokens: 100, reasoningTokens: 200, images: 0 },
    startedAt: FINISHED_AT - 1500,
    finishedAt: FINISHED_AT,
    ttfbMs: 120,
    ...overrides,
  };
}

/** Polls `check` until it returns a value other than undefined/false, or fails after `timeoutMs`. */
/** Waits until the job is completed or failed; returns its final state and the job. */
export async function jobSettled(queue: Queue, jobId: string): Promise<{ state: string; job: Job }> {
  return waitFor(
    async () => {
      const state = await queue.getJobState(jobId);
      if (state !== "completed" && state !== "failed") return undefined;
      const job = await queue.getJob(jobId);
      return job ? { state, job } : undefined;
    },
    { what: `job ${jobId} to settle` },
  );
}

export async function waitFor<T>(check: () => Promise<T | undefined | false>, options: { timeoutMs?: number; what?: string } = {}): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 15_000);
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${options.what ?? "a condition"}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
