// A flood of malformed and oversized requests alongside good ones (issue 8): every bad request
// gets the envelope with its status, good requests keep succeeding, and the proxy process's memory
// stays bounded. The proxy is a real process so its resident memory is its own, run with its image's heap
// and allocator settings.
import { randomBytes, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseGatewayFile } from "@gateway/config";
import { createLogger } from "@gateway/logger";
import { createTestDatabase, resolveTestServices, type TestDatabase } from "@gateway/testing";
import { startSimulator, type Simulator } from "@gateway/simulator";
import { applyGatewayFile, createControlPlaneServices, loadControlPlaneConfig, mintKey, type ControlPlaneServices } from "@gateway/control-plane";
import { SIMULATOR_SECRET, testGatewayYaml } from "./stack.ts";
import { spawnProxy, type ProxyProcess } from "./replicas.ts";
import { startTraffic } from "./traffic.ts";

const silent = createLogger({ name: "test", level: "silent" });
const prefix = `test-${randomUUID().slice(0, 8)}`;
const LIMIT = 1024 * 1024;

const MB = 1024 * 1024;
let database: TestDatabase;
let simulator: Simulator;
let controlPlane: ControlPlaneServices;
let proxy: ProxyProcess;
let key: string;

beforeAll(async () => {
  const { redisUrl } = await resolveTestServices();
  [database, simulator] = await Promise.all([createTestDatabase(), startSimulator({ apiKey: SIMULATOR_SECRET })]);
  controlPlane = createControlPlaneServices(loadControlPlaneConfig({ DATABASE_URL: database.url, REDIS_URL: redisUrl, REDIS_PREFIX: prefix, DB_POOL_SIZE: "2" }), silent);
  // The simulator shares this busy process with the flood's senders: give it time to answer, so a
  // slow first byte is not mistaken for a failing upstream.
  const yaml = testGatewayYaml(simulator.url).replaceAll("first_byte_ms: 1500", "first_byte_ms: 15000").replaceAll("response_ms: 2500", "response_ms: 25000");
  await applyGatewayFile(controlPlane.db.prisma, controlPlane.records, parseGatewayFile(yaml));
  const vendor = await controlPlane.db.prisma.vendor.findUniqueOrThrow({ where: { name: "test-vendor" } });
  const minted = await mintKey(controlPlane.db.prisma, controlPlane.records, {
    vendorId: vendor.id, serverOption: "standard", name: "flood", quotaNano: null, expiresAt: null, rpm: 1_000_000, tpm: 1_000_000_000, metadata: {},
  });
  key = minted.plaintext;
  proxy = await spawnProxy({ REDIS_URL: redisUrl, REDIS_PREFIX: prefix, TEST_SIMULATOR_KEY: SIMULATOR_SECRET, BODY_LIMIT_BYTES: String(LIMIT), METRICS_PUBLIC: "true", ...imageMemorySettings() });
});

afterAll(async () => {
  await proxy?.stop();
  const keys = await controlPlane.redis.keys(`${prefix}:*`);
  if (keys.length) await controlPlane.redis.del(...keys);
  await controlPlane?.close();
  await simulator?.close();
  await database?.drop();
});

/**
 * The heap and allocator settings of the proxy's image (ENV NODE_OPTIONS and MALLOC_ARENA_MAX in
 * apps/proxy/Dockerfile), so the memory measured is that of the process as it is deployed, not of
 * V8's defaults for this machine (whose young generation alone can grow by 100 MB and more).
 */
function imageMemorySettings(): Record<string, string> {
  const dockerfile = readFileSync(fileURLToPath(new URL("../Dockerfile", import.meta.url)), "utf8");
  const nodeOptions = /^ENV NODE_OPTIONS="(.*)"$/m.exec(dockerfile)?.[1];
  const arenas = /^ENV MALLOC_ARENA_MAX=(\d+)$/m.exec(dockerfile)?.[1];
  if (!nodeOptions || !arenas) throw new Error("apps/proxy/Dockerfile sets no NODE_OPTIONS or MALLOC_ARENA_MAX");
  return { NODE_OPTIONS: nodeOptions, MALLOC_ARENA_MAX: arenas };
}

/** Resident memory of the proxy process, from the kernel. */
function rssBytes(): number {
  const status = readFileSync(`/proc/${proxy.child.pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

const FIVE_MB = Buffer.alloc(5 * MB, "a");
const CHAT = "/v1/chat/completions";

/** A 5 MB body sent in 256 KiB pieces with no content-length (chunked), so the limit is hit while reading. */
function chunkedFiveMb(): ReadableStream<Uint8Array> {
  const piece = 256 * 1024;
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= FIVE_MB.length) return controller.close();
      controller.enqueue(FIVE_MB.subarray(offset, offset + piece));
      offset += piece;
    },
  });
}

interface BadCase {
  name: string;
  /** How many of the flood's requests are of this kind. */
  count: number;
  status: number;
  type: string;
  init(): { path?: string; headers: Record<string, string>; body: string | Buffer | ReadableStream<Uint8Array> };
}

const json = { "content-type": "application/json" };
const withKey = () => ({ authorization: `Bearer ${key}`, ...json });

/** Bad bodies and headers: refused before any upstream call. */
const BODY_CASES: BadCase[] = [
  { name: "malformed JSON", count: 700, status: 400, type: "invalid_request_error", init: () => ({ headers: withKey(), body: '{"model": "gpt-test", "messages": [' }) },
  { name: "missing messages", count: 400, status: 400, type: "invalid_request_error", init: () => ({ headers: withKey(), body: '{"model":"gpt-test"}' }) },
  { name: "text/plain", count: 350, status: 415, type: "invalid_request_error", init: () => ({ headers: { authorization: `Bearer ${key}`, "content-type": "text/plain" }, body: "hello" }) },
  { name: "form encoded", count: 350, status: 415, type: "invalid_request_error", init: () => ({ headers: { authorization: `Bearer ${key}`, "content-type": "application/x-www-form-urlencoded" }, body: "model=gpt-test" }) },
];

/** Bodies five times the limit: refused from the declared length, or cut off at the limit while read. */
const OVERSIZED_CASES: BadCase[] = [
  { name: "5 MB with content-length", count: 40, status: 413, type: "request_too_large", init: () => ({ headers: withKey(), body: FIVE_MB }) },
  { name: "5 MB chunked", count: 40, status: 413, type: "request_too_large", init: () => ({ headers: withKey(), body: chunkedFiveMb() }) },
];

/** Bad credentials: past the free ones, the proxy answers these 401s later and later (up to 2 s). */
const AUTH_CASES: BadCase[] = [
  { name: "unknown key", count: 300, status: 401, type: "authentication_error", init: () => ({ headers: { authorization: `Bearer sk-${randomBytes(24).toString("hex")}`, ...json }, body: '{"model":"gpt-test","messages":[]}' }) },
  { name: "no key", count: 100, status: 401, type: "authentication_error", init: () => ({ headers: json, body: '{"model":"gpt-test","messages":[]}' }) },
  { name: "not an sk- key", count: 100, status: 401, type: "authentication_error", init: () => ({ path: "/v1/messages", headers: { "x-api-key": "vt_nope", ...json }, body: "{}" }) },
];

interface BadOutcome {
  name: string;
  ok: boolean;
  detail: string;
}

async function sendBad(badCase: BadCase): Promise<BadOutcome> {
  const { path, headers, body } = badCase.init();
  try {
    const response = await fetch(`${proxy.url}${path ?? CHAT}`, { method: "POST", headers, body, duplex: "half" } as RequestInit);
    const text = await response.text();
    const parsed = JSON.parse(text) as { type?: string; error?: { type?: string; message?: string }; request_id?: string };
    const ok =
      response.status === badCase.status &&
      parsed.type === "error" &&
      parsed.error?.type === badCase.type &&
      typeof parsed.error.message === "string" &&
      parsed.request_id === response.headers.get("x-request-id") &&
      /^req_/.test(parsed.request_id ?? "");
    return { name: badCase.name, ok, detail: `${response.status} ${text.slice(0, 200)}` };
  } catch (error) {
    return { name: badCase.name, ok: false, detail: String((error as Error).cause ?? error) };
  }
}

/** Sends every case's requests, interleaved, `lanes` at a time. */
async function flood(cases: BadCase[], lanes: number): Promise<BadOutcome[]> {
  const queue = cases.flatMap((badCase) => Array.from({ length: badCase.count }, () => badCase));
  queue.sort(() => Math.random() - 0.5);
  const outcomes: BadOutcome[] = [];
  const lane = async () => {
    for (let badCase = queue.pop(); badCase; badCase = queue.pop()) outcomes.push(await sendBad(badCase));
  };
  await Promise.all(Array.from({ length: lanes }, lane));
  return outcomes;
}

/** The proxy's own view of its memory (prom-client default metrics). */
async function heapAndExternal(): Promise<number> {
  const text = await (await fetch(`${proxy.url}/metrics`)).text();
  const value = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)`, "m").exec(text)![1]);
  return value("nodejs_heap_size_used_bytes") + value("nodejs_external_memory_bytes");
}

/** The same cases, `fraction` as many of each. */
const scaled = (cases: BadCase[], fraction: number) => cases.map((badCase) => ({ ...badCase, count: Math.ceil(badCase.count * fraction) }));
const total = (cases: BadCase[]) => cases.reduce((sum, badCase) => sum + badCase.count, 0);

describe("a flood of bad requests beside good traffic", () => {
  it("answers every bad request with its envelope, keeps serving the good ones, and keeps memory bounded", { timeout: 60_000 }, async () => {
    // Warm-up: a fresh Node process grows its heap to its working size over its first few thousand
    // requests (its RSS about doubles, flood or not), so the baseline is taken after that.
    const warmup = startTraffic(proxy.url, key, 8);
    const warmupOutcomes = (await Promise.all([flood(scaled(BODY_CASES, 0.1), 16), flood(scaled(OVERSIZED_CASES, 0.1), 4), flood(scaled(AUTH_CASES, 0.1), 50)])).flat();
    await expect.poll(() => warmup.results.length, { timeout: 30_000 }).toBeGreaterThanOrEqual(2_000);
    const warmed = await warmup.stop();
    const baseline = rssBytes();
    const heapBaseline = await heapAndExternal();

    const good = startTraffic(proxy.url, key, 4);
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, rssBytes())), 20);
    const outcomes = (await Promise.all([flood(BODY_CASES, 32), flood(OVERSIZED_CASES, 40), flood(AUTH_CASES, 250)])).flat();
    const goodResults = await good.stop();
    clearInterval(sampler);
    peak = Math.max(peak, rssBytes());

    // Each bad request got its envelope with the right status; the good ones all succeeded.
    expect(outcomes).toHaveLength(total(BODY_CASES) + total(OVERSIZED_CASES) + total(AUTH_CASES));
    expect([...warmupOutcomes, ...outcomes].filter((outcome) => !outcome.ok).slice(0, 5)).toEqual([]);
    const goodOnes = [...warmed, ...goodResults];
    expect(goodResults.length).toBeGreaterThan(20);
    expect(goodOnes.filter((result) => result.status !== 200 || !result.complete).slice(0, 5)).toEqual([]);
    // Nothing bad reached the upstream: every call it saw was made for a good request.
    const goodIds = new Set(goodOnes.map((result) => result.requestId));
    expect(simulator.stats.requests.filter((record) => !goodIds.has(String(record.headers["x-request-id"])))).toEqual([]);

    // 80 bodies of 5 MB went by, 40 at a time: a proxy holding them would be 200 MB up at least.
    expect(peak - baseline).toBeLessThan(150 * MB);
    // Resident pages are not handed back to the OS, but what the process holds drops back: under
    // light traffic the heap (plus buffers) returns to the baseline at its next collections.
    const light = startTraffic(proxy.url, key, 1);
    try {
      await expect.poll(heapAndExternal, { timeout: 15_000, interval: 100 }).toBeLessThan(heapBaseline + 32 * MB);
    } finally {
      await light.stop();
    }
    expect(rssBytes() - baseline).toBeLessThan(150 * MB);
  });
});
