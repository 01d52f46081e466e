// Graceful shutdown on SIGTERM (issue 8), with the proxy as a real process: the in-flight streams
// finish with their terminal events, nothing new is accepted, their billing events reach the queue,
// and the process exits 0.
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { Agent, fetch as undiciFetch } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BILLING_QUEUE, billingEventsOf, type BillingEvent } from "@gateway/contracts";
import { parseGatewayFile } from "@gateway/config";
import { createLogger } from "@gateway/logger";
import { redisKeys } from "@gateway/redis-store";
import { createTestDatabase, resolveTestServices, type TestDatabase } from "@gateway/testing";
import { startSimulator, type Simulator } from "@gateway/simulator";
import { applyGatewayFile, createControlPlaneServices, loadControlPlaneConfig, mintKey, type ControlPlaneServices } from "@gateway/control-plane";
import { SIMULATOR_SECRET, testGatewayYaml } from "./stack.ts";
import { spawnProxy, type ProxyProcess } from "./replicas.ts";

const silent = createLogger({ name: "test", level: "silent" });
const prefix = `test-${randomUUID().slice(0, 8)}`;
let redisUrl: string;
let database: TestDatabase;
let simulator: Simulator;
let controlPlane: ControlPlaneServices;
let queueConnection: Redis;
let queue: Queue;
let key: string;
let proxy: ProxyProcess | undefined;

beforeAll(async () => {
  ({ redisUrl } = await resolveTestServices());
  [database, simulator] = await Promise.all([createTestDatabase(), startSimulator({ apiKey: SIMULATOR_SECRET })]);
  controlPlane = createControlPlaneServices(loadControlPlaneConfig({ DATABASE_URL: database.url, REDIS_URL: redisUrl, REDIS_PREFIX: prefix, DB_POOL_SIZE: "2" }), silent);
  await applyGatewayFile(controlPlane.db.prisma, controlPlane.records, parseGatewayFile(testGatewayYaml(simulator.url)));
  const vendor = await controlPlane.db.prisma.vendor.findUniqueOrThrow({ where: { name: "test-vendor" } });
  const minted = await mintKey(controlPlane.db.prisma, controlPlane.records, {
    vendorId: vendor.id, serverOption: "standard", name: "shutdown", quotaNano: null, expiresAt: null, rpm: null, tpm: null, metadata: {},
  });
  key = minted.plaintext;
  queueConnection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  queue = new Queue(BILLING_QUEUE, { connection: queueConnection, prefix: redisKeys(prefix).queuePrefix });
});

afterAll(async () => {
  await clingingClient.close();
  if (proxy && proxy.child.exitCode === null && proxy.child.signalCode === null) proxy.child.kill("SIGKILL");
  await queue?.obliterate({ force: true }).catch(() => undefined);
  await queue?.close();
  queueConnection?.disconnect();
  const keys = await controlPlane.redis.keys(`${prefix}:*`);
  if (keys.length) await controlPlane.redis.del(...keys);
  await controlPlane?.close();
  await simulator?.close();
  await database?.drop();
});

const SLOW = "#sim:chunks=20 #sim:chunk_delay_ms=100 a slow answer";
/**
 * A client that keeps idle connections for ten minutes (as SDK agents and load balancers may): the
 * proxy must end them itself once their responses are done, or it would wait for its deadline.
 */
const clingingClient = new Agent({ keepAliveTimeout: 600_000, keepAliveMaxTimeout: 600_000 });

/** Starts a streaming request and resolves once its first content event has arrived. */
async function openStream(url: string, path: string, body: object, firstContent: RegExp) {
  const response = await undiciFetch(`${url}${path}`, {
    dispatcher: clingingClient,
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "anthropic-version": "2023-06-01" },
    body: JSON.stringify({ ...body, stream: true }),
  });
  expect(response.status).toBe(200);
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!firstContent.test(text)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`stream ended before its first content event:\n${text}`);
    text += value;
  }
  const rest = (async () => {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += chunk.value;
    return text;
  })();
  return { requestId: response.headers.get("x-request-id")!, rest };
}

async function billed(requestId: string): Promise<BillingEvent[]> {
  const jobs = await queue.getJobs(["waiting", "active", "completed", "failed", "delayed", "prioritized"]);
  return jobs.flatMap((job) => billingEventsOf(job.data) as BillingEvent[]).filter((event) => event.requestId === requestId);
}

describe("SIGTERM to a proxy process with streams in flight", () => {
  it("stops accepting, finishes the streams with their terminal events, bills them, and exits 0", async () => {
    // A shutdown deadline far beyond this test's timeout: only a clean drain lets the process exit in time.
    proxy = await spawnProxy({ REDIS_URL: redisUrl, REDIS_PREFIX: prefix, TEST_SIMULATOR_KEY: SIMULATOR_SECRET, SHUTDOWN_DEADLINE_MS: "120000" });
    const { url, child } = proxy;
    const chat = await openStream(url, "/v1/chat/completions", { model: "gpt-test", messages: [{ role: "user", content: SLOW }] }, /"content":"[^"]+"/);
    const messages = await openStream(url, "/v1/messages", { model: "claude-test", max_tokens: 100, messages: [{ role: "user", content: SLOW }] }, /event: content_block_delta/);

    const exited = once(child, "exit");
    child.kill("SIGTERM");

    // Not ready any more: /readyz answers 503, or the port no longer accepts connections.
    const readyz = () => fetch(`${url}/readyz`).then((response) => response.status, () => "refused");
    await expect.poll(readyz, { timeout: 5_000, interval: 20 }).not.toBe(200);
    const late = await fetch(`${url}/v1/models`, { headers: { authorization: `Bearer ${key}` } }).then((response) => response.status, () => "refused");
    expect(late).not.toBe(200);

    // The streams in flight run to their natural end; then their connections are closed.
    const chatText = await chat.rest;
    expect(chatText.trimEnd().endsWith("data: [DONE]")).toBe(true);
    expect(chatText).not.toContain('"error"');
    expect(chatText.match(/"content":"[^"]+"/g)).toHaveLength(20);
    const messagesText = await messages.rest;
    expect(messagesText).toContain("event: message_stop");
    expect(messagesText).not.toContain("event: error");
    expect(messagesText.match(/event: content_block_delta/g)).toHaveLength(20);

    expect(await exited).toEqual([0, null]);

    // Their billing events were flushed to the queue before the process left.
    for (const requestId of [chat.requestId, messages.requestId]) {
      const events = await billed(requestId);
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ status: "ok", estimated: false, usage: { outputTokens: 20 } });
    }
  });
});
