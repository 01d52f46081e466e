// Contract section 14, "A process that dies": a proxy process with 50 slow streams open, and 20 more
// admitted a few milliseconds earlier, is killed with SIGKILL. Within 60 s every request it admitted has exactly one ledger row (interrupted,
// estimated, billed at least what its journal had checkpointed), and what the requests held of the
// key's limits is back: nothing reserved, the spend equal to the ledger's.
import { randomUUID } from "node:crypto";
import { connect, createServer, type AddressInfo, type Server } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseGatewayFile } from "@gateway/config";
import { createLogger } from "@gateway/logger";
import { applyGatewayFile, loadControlPlaneConfig, mintKey, startControlPlane, type RunningControlPlane } from "@gateway/control-plane";
import { loadBillingWorkerConfig, startBillingWorker, type RunningBillingWorker } from "@gateway/billing-worker";
import { journalKeys, LimitStore, type JournalEntry } from "@gateway/redis-store";
import { startSimulator, type Simulator } from "@gateway/simulator";
import { createTestDatabase, resolveTestServices, type TestDatabase } from "@gateway/testing";
import { SIMULATOR_SECRET, testGatewayYaml } from "./stack.ts";
import { spawnProxy, type ProxyProcess } from "./replicas.ts";

const STREAMS = 50;
/** Requests admitted a few milliseconds before the kill. */
const BURST = 20;
const silent = createLogger({ name: "test", level: "silent" });
let database: TestDatabase;
let simulator: Simulator;
let controlPlane: RunningControlPlane;
let worker: RunningBillingWorker;
let proxy: ProxyProcess;
let prefix: string;
let link: Server;

/** How long the proxy's commands take to reach Redis (its answers come back at once). */
const LINK_DELAY_MS = 150;

/**
 * A slow network between the proxy and Redis: each command the proxy writes arrives LINK_DELAY_MS
 * later, and what has not arrived when the proxy's socket dies never does (as on a real link). A
 * process killed right after it sent a write has not written it: only a write Redis answered is.
 */
async function slowLink(redisUrl: string): Promise<{ server: Server; url: string }> {
  const target = new URL(redisUrl);
  const server = createServer((client) => {
    const redis = connect(Number(target.port || 6379), target.hostname);
    const timers = new Set<NodeJS.Timeout>();
    client.on("data", (chunk) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        redis.write(chunk);
      }, LINK_DELAY_MS);
      timers.add(timer);
    });
    redis.pipe(client);
    const drop = () => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      client.destroy();
      redis.destroy();
    };
    client.on("close", drop).on("error", drop);
    redis.on("close", drop).on("error", drop);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = new URL(redisUrl);
  url.hostname = "127.0.0.1";
  url.port = String((server.address() as AddressInfo).port);
  return { server, url: url.toString() };
}

beforeAll(async () => {
  const { redisUrl } = await resolveTestServices();
  prefix = `test-${randomUUID().slice(0, 8)}`;
  database = await createTestDatabase();
  simulator = await startSimulator({ apiKey: SIMULATOR_SECRET });
  controlPlane = await startControlPlane(loadControlPlaneConfig({ DATABASE_URL: database.url, REDIS_URL: redisUrl, REDIS_PREFIX: prefix, PORT: "0", LOG_LEVEL: "silent" }), silent);
  await applyGatewayFile(controlPlane.services.db.prisma, controlPlane.services.records, parseGatewayFile(testGatewayYaml(simulator.url)));
  // The worker and its sweeper with their defaults (a sweep every 2 s).
  worker = await startBillingWorker(loadBillingWorkerConfig({ DATABASE_URL: database.url, REDIS_URL: redisUrl, REDIS_PREFIX: prefix, PORT: "0" }), silent);
  // The proxy reaches Redis over a slow link, so a write it sent just before its death is lost.
  const slow = await slowLink(redisUrl);
  link = slow.server;
  proxy = await spawnProxy({ REDIS_URL: slow.url, REDIS_PREFIX: prefix, PROXY_PROCESSES: "1", JOURNAL_CHECKPOINT_MS: "1000", LOG_LEVEL: "silent" });
}, 60_000);

afterAll(async () => {
  if (proxy && proxy.child.exitCode === null && proxy.child.signalCode === null) proxy.child.kill("SIGKILL");
  await worker?.close();
  const redis = controlPlane.services.redis;
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  await controlPlane?.close();
  await simulator?.close();
  link?.close();
  await database?.drop();
});

/** Opens a slow stream (about 30 s of chunks) and reads it until the connection dies; resolves to its request id. */
async function openStream(key: string, index: number, received: number[], label = "stream"): Promise<string> {
  const response = await fetch(`${proxy.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "gpt-test", stream: true, max_tokens: 1000, messages: [{ role: "user", content: `${label} ${index} #sim:chunks=300 #sim:chunk_delay_ms=100` }] }),
  });
  expect(response.status).toBe(200);
  const requestId = response.headers.get("x-request-id")!;
  const reader = response.body!.getReader();
  void (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        received[index] = (received[index] ?? 0) + value.byteLength;
      }
    } catch {
      // the proxy died under it: expected
    }
  })();
  return requestId;
}

async function waitFor<T>(what: string, timeoutMs: number, read: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe("a proxy process that ends: killed with 50 streams open, or stopped", () => {
  it("bills every admitted request exactly once within 60 s, at least its last checkpoint, and gives its reservations back", async () => {
    const { prisma } = controlPlane.services.db;
    const vendor = await prisma.vendor.findUniqueOrThrow({ where: { name: "test-vendor" } });
    // A quota, so every admission reserves money (and, under the option's TPM, holds tokens).
    const minted = await mintKey(prisma, controlPlane.services.records, { vendorId: vendor.id, serverOption: "standard", name: "killed", quotaNano: 50n * 1_000_000_000n, expiresAt: null, rpm: null, tpm: null, metadata: {} });
    const keyId = minted.row.id;
    const received: number[] = [];
    const requestIds = await Promise.all(Array.from({ length: STREAMS }, (_, index) => openStream(minted.plaintext, index, received)));
    expect(new Set(requestIds).size).toBe(STREAMS);

    // Wait until the journal holds every stream with output checkpointed, then one more checkpoint.
    const redis = controlPlane.services.redis;
    const journal = journalKeys(prefix);
    const checkpointed = await waitFor("every stream checkpointed with output", 20_000, async () => {
      const [processId] = await redis.zrange(journal.live, "0", "-1");
      if (processId === undefined) return undefined;
      const fields = await redis.hgetall(journal.process(processId));
      const entries = Object.entries(fields).filter(([field]) => field !== "meta").map(([, text]) => JSON.parse(text) as JournalEntry);
      const withOutput = entries.filter((entry) => entry.usage.outputTokens > 0);
      return withOutput.length === STREAMS ? new Map(entries.map((entry) => [entry.requestId, entry.usage.outputTokens])) : undefined;
    });
    expect([...checkpointed.keys()].sort()).toEqual([...requestIds].sort());
    const limits = new LimitStore(redis, prefix);
    expect((await limits.readQuota(keyId)).reserved).toBeGreaterThan(0n);
    // The option's TPM: each stream holds its input estimate and output bound in flight.
    expect(await limits.readTokensHeld(keyId)).toBeGreaterThanOrEqual(STREAMS * 1000);

    // A burst of requests admitted just before the kill: the process dies the moment the upstream
    // has seen the first of them, long before any checkpoint, and its last writes die on the slow
    // link with it. No upstream is called before Redis has answered the journal's write of the
    // request, so every request the upstream saw gets its row too.
    const burstReceived: number[] = [];
    for (let index = 0; index < BURST; index += 1) void openStream(minted.plaintext, index, burstReceived, "burst stream").catch(() => undefined);
    const burstSeen = () => simulator.stats.requests.filter((record) => JSON.stringify(record.body).includes("burst stream"));
    const deadline = Date.now() + 10_000;
    while (burstSeen().length === 0 && Date.now() < deadline) await new Promise((resolve) => setImmediate(resolve));
    const exited = new Promise((resolve) => proxy.child.once("exit", resolve));
    proxy.child.kill("SIGKILL");
    await exited;
    const killedAt = Date.now();
    // A request the dead process sent may still be on its way into the upstream: read them after.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const burstIds = burstSeen().map((record) => record.headers["x-request-id"]!);
    expect(burstIds.length).toBeGreaterThan(0);
    const admitted = [...requestIds, ...burstIds];

    // Polled up to the contract's bound: one row per admitted request.
    const rows = await waitFor("a ledger row for every stream", 60_000, async () => {
      const found = await prisma.usageRecord.findMany({ where: { apiKeyId: keyId } });
      return found.length >= admitted.length && admitted.every((id) => found.some((row) => row.requestId === id)) ? found : undefined;
    });
    expect(Date.now() - killedAt).toBeLessThan(60_000);
    // Every request the upstream saw has its row, each exactly one. A burst request journaled but
    // killed before its upstream call has one too (admitted, then interrupted): never more rows
    // than requests sent.
    const rowIds = rows.map((row) => row.requestId);
    expect(new Set(rowIds).size).toBe(rowIds.length);
    expect(rowIds).toEqual(expect.arrayContaining(admitted));
    expect(rowIds.length).toBeLessThanOrEqual(STREAMS + BURST);
    for (const row of rows) {
      expect(row).toMatchObject({ status: "interrupted", estimated: true, stream: true, model: "gpt-test" });
      // Billed at least what was checkpointed (a later checkpoint can only have more).
      expect(row.outputTokens).toBeGreaterThanOrEqual(BigInt(checkpointed.get(row.requestId) ?? 0));
      expect(row.inputTokens).toBeGreaterThan(0n);
      expect(row.costNano).toBeGreaterThan(0n);
    }

    // Reservations (and the dead process's lease slices) are back; the spend is the ledger's, booked once.
    await waitFor("nothing reserved on the key", 10_000, async () => ((await limits.readQuota(keyId)).reserved === 0n ? true : undefined));
    // The spend is the ledger's, once every row of the sweep has landed (rows of one sweep can come in more than one batch).
    await waitFor("the spend equal to the ledger's", 10_000, async () => {
      const all = await prisma.usageRecord.findMany({ where: { apiKeyId: keyId } });
      const ledgerCost = all.reduce((sum, row) => sum + row.costNano, 0n);
      return (await limits.readQuota(keyId)).spent === ledgerCost ? true : undefined;
    });
    expect(await limits.readTokensHeld(keyId)).toBe(0);
    // Nothing left to sweep.
    expect(await redis.zcard(journal.live)).toBe(0);
    expect(await redis.zcard(journal.claims)).toBe(0);
    // And the clients had been receiving their streams when the process died.
    expect(received.filter((bytes) => bytes > 0)).toHaveLength(STREAMS);
  }, 120_000);

  it("a graceful stop (SIGTERM) bills its streams itself and leaves no journal behind", async () => {
    const { redisUrl } = await resolveTestServices();
    const { prisma } = controlPlane.services.db;
    const vendor = await prisma.vendor.findUniqueOrThrow({ where: { name: "test-vendor" } });
    const minted = await mintKey(prisma, controlPlane.services.records, { vendorId: vendor.id, serverOption: "standard", name: "stopped", quotaNano: 50n * 1_000_000_000n, expiresAt: null, rpm: null, tpm: null, metadata: {} });
    const stopping = await spawnProxy({ REDIS_URL: redisUrl, REDIS_PREFIX: prefix, PROXY_PROCESSES: "1", JOURNAL_CHECKPOINT_MS: "200", SHUTDOWN_DEADLINE_MS: "20000", LOG_LEVEL: "silent" });
    const redis = controlPlane.services.redis;
    const journal = journalKeys(prefix);
    const streams = Array.from({ length: 5 }, async (_, index) => {
      const response = await fetch(`${stopping.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${minted.plaintext}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "gpt-test", stream: true, messages: [{ role: "user", content: `short ${index} #sim:chunks=20 #sim:chunk_delay_ms=100` }] }),
      });
      await response.text();
      return response.headers.get("x-request-id")!;
    });
    // Journaled (so there is something to clean up), then asked to stop while the streams run.
    await waitFor("the streams journaled", 10_000, async () => {
      const [processId] = await redis.zrange(journal.live, "0", "-1");
      return processId !== undefined && (await redis.hlen(journal.process(processId))) > 5 ? true : undefined;
    });
    const exited = new Promise((resolve) => stopping.child.once("exit", resolve));
    stopping.child.kill("SIGTERM");
    const requestIds = await Promise.all(streams);
    await exited;
    expect(await redis.zcard(journal.live)).toBe(0);
    expect(await redis.keys(`${journal.base}*`)).toEqual([]);
    const rows = await waitFor("the streams' own rows", 10_000, async () => {
      const found = await prisma.usageRecord.findMany({ where: { apiKeyId: minted.row.id } });
      return found.length === 5 ? found : undefined;
    });
    expect(rows.map((row) => row.requestId).sort()).toEqual(requestIds.sort());
    expect(rows.every((row) => row.status === "ok" && !row.estimated)).toBe(true);
  }, 60_000);
});
