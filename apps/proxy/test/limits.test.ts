import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { parseGatewayFile } from "@gateway/config";
import { createLogger } from "@gateway/logger";
import { createTestDatabase, resolveTestServices, type TestDatabase } from "@gateway/testing";
import { LimitStore } from "@gateway/redis-store";
import { startSimulator, type Simulator } from "@gateway/simulator";
import { applyGatewayFile, createControlPlaneServices, loadControlPlaneConfig, mintKey, type ControlPlaneServices } from "@gateway/control-plane";
import { loadBillingWorkerConfig, startBillingWorker, type RunningBillingWorker } from "@gateway/billing-worker";
import { SIMULATOR_SECRET, testGatewayYaml } from "./stack.ts";
import { spawnProxy, type ProxyProcess } from "./replicas.ts";
import { requestBoundNano, unitPrices } from "../src/limits/request-bound.ts";

const silent = createLogger({ name: "test", level: "silent" });
let database: TestDatabase;
let simulator: Simulator;
let controlPlane: ControlPlaneServices;
let worker: RunningBillingWorker;
let proxies: ProxyProcess[] = [];
const prefix = `test-${randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  const { redisUrl } = await resolveTestServices();
  database = await createTestDatabase();
  simulator = await startSimulator({ apiKey: SIMULATOR_SECRET });
  controlPlane = createControlPlaneServices(loadControlPlaneConfig({ DATABASE_URL: database.url, REDIS_URL: redisUrl, REDIS_PREFIX: prefix }), silent);
  await applyGatewayFile(controlPlane.db.prisma, controlPlane.records, parseGatewayFile(testGatewayYaml(simulator.url)));
  worker = await startBillingWorker(loadBillingWorkerConfig({ DATABASE_URL: database.url, REDIS_URL: redisUrl, REDIS_PREFIX: prefix, PORT: "0" }), silent);
  const env = { REDIS_URL: redisUrl, REDIS_PREFIX: prefix, TEST_SIMULATOR_KEY: SIMULATOR_SECRET };
  proxies = await Promise.all([spawnProxy(env), spawnProxy(env), spawnProxy(env)]);
}, 90_000);

afterAll(async () => {
  await Promise.all(proxies.map((proxy) => proxy.stop()));
  await worker?.close();
  const keys = await controlPlane.redis.keys(`${prefix}:*`);
  if (keys.length) await controlPlane.redis.del(...keys);
  await controlPlane?.close();
  await simulator?.close();
  await database?.drop();
});

async function newKey(options: { quotaNano?: bigint | null; rpm?: number | null; tpm?: number | null }) {
  const vendor = await controlPlane.db.prisma.vendor.findUniqueOrThrow({ where: { name: "test-vendor" } });
  const minted = await mintKey(controlPlane.db.prisma, controlPlane.records, {
    vendorId: vendor.id, serverOption: "standard", name: "limits", quotaNano: options.quotaNano ?? null, expiresAt: null, rpm: options.rpm ?? null, tpm: options.tpm ?? null, metadata: {},
  });
  return minted;
}

/** Sends `total` requests spread round-robin over the three proxies, `concurrency` at a time. */
async function flood(key: string, total: number, concurrency: number, maxTokens = 12) {
  const statuses: { status: number; code: string | null; retryAfter: string | null }[] = [];
  let next = 0;
  const lane = async () => {
    while (next < total) {
      const index = next++;
      const proxy = proxies[index % proxies.length]!;
      const body = JSON.stringify({ model: "gpt-test", max_tokens: maxTokens, messages: [{ role: "user", content: `hello ${index}` }] });
      const response = await fetch(`${proxy.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body,
      });
      const answer = (await response.json()) as { error?: { code: string } };
      statuses.push({ status: response.status, code: answer.error?.code ?? null, retryAfter: response.headers.get("retry-after") });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  return statuses;
}

/** Rate windows are per minute: keep a burst inside one. */
async function awayFromMinuteBoundary() {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 45_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoMinute + 500));
}

describe("limits across three proxy processes sharing one Redis", () => {
  it("a small quota is never overspent: each admission's whole reservation fits in what is left, and nothing reaches the upstream after it", async () => {
    const quotaNano = 200_000n; // $0.0002, about 25 requests of ~7,500 nano
    const minted = await newKey({ quotaNano });
    const before = simulator.stats.totals.requests;
    const burst = await flood(minted.plaintext, 90, 12);
    // A burst ends with refusals while the last admitted requests still hold their reservations and
    // the processes their leases' slices (quota is left then); one request at a time until a
    // refusal uses it up, each once nothing is held (every request settled, every lease ended), so
    // the last refusal says the quota has no room for one more reservation.
    const nothingHeld = () => expect.poll(async () => (await controlPlane.limits.readQuota(minted.row.id)).reserved, { timeout: 10_000 }).toBe(0n);
    const tail: typeof burst = [];
    for (let i = 0; i < 30 && tail.at(-1)?.status !== 429; i += 1) {
      await nothingHeld();
      tail.push(...(await flood(minted.plaintext, 1, 1)));
    }
    expect(tail.at(-1)?.status).toBe(429);
    const results = [...burst, ...tail];
    const admitted = results.filter((r) => r.status === 200).length;
    const refused = results.filter((r) => r.status === 429);
    expect(admitted + refused.length).toBe(results.length);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((r) => r.code === "insufficient_quota")).toBe(true);
    // Every upstream call was an admitted request: none after exhaustion.
    expect(simulator.stats.totals.requests - before).toBe(admitted);

    await expect.poll(async () => controlPlane.db.prisma.usageRecord.count({ where: { apiKeyId: minted.row.id } }), { timeout: 10_000 }).toBe(admitted);
    const spent = (await controlPlane.db.prisma.usageRecord.aggregate({ where: { apiKeyId: minted.row.id }, _sum: { costNano: true } }))._sum.costNano ?? 0n;
    // Never past the quota, at any concurrency on three replicas; the last refusal came when one
    // more reservation (body bytes as input tokens + max_tokens output, at the option's prices) no longer fitted.
    const option = (await controlPlane.records.readSnapshot())!.serverOptions.standard!;
    const body = { model: "gpt-test", max_tokens: 12, messages: [{ role: "user", content: "hello 99" }] };
    const oneReservation = requestBoundNano({ body, model: "gpt-test", stream: false, outputBound: 12 }, Buffer.byteLength(JSON.stringify(body)), unitPrices(option, "gpt-test")!, "chat.completions");
    expect(spent).toBeLessThanOrEqual(quotaNano);
    expect(spent).toBeGreaterThan(quotaNano - oneReservation);
  });

  it("the RPM limit admits the configured number per window in total, not per replica", async () => {
    await awayFromMinuteBoundary();
    const minted = await newKey({ rpm: 12 });
    const results = await flood(minted.plaintext, 45, 9);
    expect(results.filter((r) => r.status === 200)).toHaveLength(12);
    const limited = results.filter((r) => r.status === 429);
    expect(limited).toHaveLength(33);
    expect(limited.every((r) => r.code === "rate_limit_exceeded" && Number(r.retryAfter) >= 1)).toBe(true);
  });

  it("leases: a burst over three processes never passes the RPM, the requests leases did not use come back, and the quota's counters equal the ledger", async () => {
    await awayFromMinuteBoundary();
    // Large enough for leases (an eighth of what is left: 10 requests at first), small enough to reach.
    const minted = await newKey({ rpm: 80, quotaNano: 10n ** 9n });
    // A burst that stops while the three processes' leases still hold requests they did not use.
    const burst = await flood(minted.plaintext, 30, 9);
    expect(burst.every((r) => r.status === 200)).toBe(true);
    // Once the leases have ended (LIMIT_LEASE_MS, 1 s) those requests are back. Another burst
    // never passes the 80 (near the limit a process can be refused while another's lease still
    // holds a few); once those leases end too, the minute's last requests can be used, not one more.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const second = await flood(minted.plaintext, 90, 9);
    const admitted = 30 + second.filter((r) => r.status === 200).length;
    expect(admitted).toBeLessThanOrEqual(80);
    expect(admitted).toBeGreaterThan(60);
    expect(second.filter((r) => r.status !== 200).every((r) => r.status === 429 && r.code === "rate_limit_exceeded")).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const last = await flood(minted.plaintext, 90 - admitted, 1);
    expect(admitted + last.filter((r) => r.status === 200).length).toBe(80);
    // Every request settled: Redis's spend is the ledger's, nothing is held by a lease or a reservation.
    const limits = new LimitStore(controlPlane.redis, prefix);
    await expect
      .poll(async () => {
        const ledger = await controlPlane.db.prisma.usageRecord.aggregate({ where: { apiKeyId: minted.row.id }, _sum: { costNano: true }, _count: true });
        return { ledger: ledger._count, quota: await limits.readQuota(minted.row.id), spent: ledger._sum.costNano };
      }, { timeout: 15_000 })
      .toSatisfy((state: { ledger: number; quota: { spent: bigint; reserved: bigint }; spent: bigint | null }) => state.ledger === 80 && state.quota.reserved === 0n && state.quota.spent === state.spent);
  });

  it("the TPM holds under concurrency on three replicas: in-flight requests hold their tokens, one larger than the TPM is refused", async () => {
    await awayFromMinuteBoundary();
    const tpm = 1_000;
    const minted = await newKey({ tpm });
    const before = simulator.stats.totals.requests;
    // Sixty at once, each holding about 120 tokens (input estimate + max_tokens 100).
    const results = await flood(minted.plaintext, 60, 60, 100);
    const admitted = results.filter((r) => r.status === 200);
    expect(admitted.length).toBeGreaterThan(0);
    expect(results.filter((r) => r.status !== 200).every((r) => r.status === 429 && r.code === "rate_limit_exceeded" && Number(r.retryAfter) >= 1)).toBe(true);
    expect(simulator.stats.totals.requests - before).toBe(admitted.length);
    // What the ledger books within the minute never passes the TPM (each used no more than it held).
    await expect.poll(async () => controlPlane.db.prisma.usageRecord.count({ where: { apiKeyId: minted.row.id } }), { timeout: 10_000 }).toBe(admitted.length);
    const used = await controlPlane.db.prisma.usageRecord.aggregate({ where: { apiKeyId: minted.row.id }, _sum: { inputTokens: true, outputTokens: true } });
    expect(Number(used._sum.inputTokens ?? 0n) + Number(used._sum.outputTokens ?? 0n)).toBeLessThanOrEqual(tpm);
    // The case: requests of ~500 tokens on a 100-token key are each too large: none admitted.
    const small = await newKey({ tpm: 100 });
    const tooLarge = await flood(small.plaintext, 20, 20, 500);
    expect(tooLarge.every((r) => r.status === 429 && r.code === "rate_limit_exceeded")).toBe(true);
    expect(simulator.stats.totals.requests - before).toBe(admitted.length);
  });

  it("count_tokens takes an RPM slot and is refused once the key's quota is spent", async () => {
    await awayFromMinuteBoundary();
    const count = (key: string, proxy: ProxyProcess) =>
      fetch(`${proxy.url}/v1/messages/count_tokens`, {
        method: "POST",
        headers: { "x-api-key": key, "anthropic-version": "2023-06-01", "content-type": "application/json" },
        body: JSON.stringify({ model: "claude-test", messages: [{ role: "user", content: "count me" }] }),
      }).then(async (response) => ({ status: response.status, body: (await response.json()) as { input_tokens?: number; error?: { code: string } } }));
    const limited = await newKey({ rpm: 2, quotaNano: 10n ** 9n });
    const counted = [await count(limited.plaintext, proxies[0]!), await count(limited.plaintext, proxies[1]!), await count(limited.plaintext, proxies[2]!)];
    expect(counted.map((r) => r.status)).toEqual([200, 200, 429]);
    expect(counted[2]!.body.error?.code).toBe("rate_limit_exceeded");
    // Counting reserved nothing of the quota.
    expect(await controlPlane.limits.readQuota(limited.row.id)).toEqual({ spent: 0n, reserved: 0n });
    const spent = await newKey({ quotaNano: 1_000n });
    await controlPlane.limits.setSpent(spent.row.id, 1_000n);
    const refused = await count(spent.plaintext, proxies[1]!);
    expect(refused.status).toBe(429);
    expect(refused.body.error?.code).toBe("insufficient_quota");
  });

  it("the x-ratelimit-* headers are on the response, as the official openai client reads them", async () => {
    await awayFromMinuteBoundary();
    const minted = await newKey({ rpm: 5 });
    const openai = new OpenAI({ baseURL: `${proxies[1]!.url}/v1`, apiKey: minted.plaintext, maxRetries: 0 });
    const first = await openai.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "hi" }] }).withResponse();
    expect(first.response.headers.get("x-ratelimit-limit-requests")).toBe("5");
    expect(first.response.headers.get("x-ratelimit-remaining-requests")).toBe("4");
    expect(first.response.headers.get("x-ratelimit-reset-requests")).toMatch(/^\d+s$/);
    const second = await new OpenAI({ baseURL: `${proxies[2]!.url}/v1`, apiKey: minted.plaintext, maxRetries: 0 }).chat.completions
      .create({ model: "gpt-test", messages: [{ role: "user", content: "hi" }] })
      .withResponse();
    expect(second.response.headers.get("x-ratelimit-remaining-requests")).toBe("3");
    expect(second.response.headers.get("x-ratelimit-limit-tokens")).toBe("200000");
    expect(Number(second.response.headers.get("x-ratelimit-remaining-tokens"))).toBeLessThanOrEqual(200000);
  });
});
