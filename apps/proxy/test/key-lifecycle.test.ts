// The key's whole life through the vendor API (contract section 9), seen by three proxy processes
// on one Redis: every PATCH field, top-ups racing spending, rotation with and without grace, and
// the audit log. Two control planes take the vendor calls, as two replicas would.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseGatewayFile } from "@gateway/config";
import { hashSecret } from "@gateway/contracts";
import { createLogger } from "@gateway/logger";
import { LimitStore } from "@gateway/redis-store";
import { createTestDatabase, resolveTestServices, type TestDatabase } from "@gateway/testing";
import { startSimulator, type Simulator } from "@gateway/simulator";
import { applyGatewayFile, createVendorToken, loadControlPlaneConfig, startControlPlane, type RunningControlPlane } from "@gateway/control-plane";
import { loadBillingWorkerConfig, startBillingWorker, type RunningBillingWorker } from "@gateway/billing-worker";
import { SIMULATOR_SECRET, testGatewayYaml } from "./stack.ts";
import { spawnProxy, type ProxyProcess } from "./replicas.ts";

const silent = createLogger({ name: "test", level: "silent" });
const prefix = `test-${randomUUID().slice(0, 8)}`;
let database: TestDatabase;
let simulator: Simulator;
let controlPlanes: RunningControlPlane[] = [];
let worker: RunningBillingWorker;
let proxies: ProxyProcess[] = [];
let token: string;

beforeAll(async () => {
  const { redisUrl } = await resolveTestServices();
  database = await createTestDatabase();
  simulator = await startSimulator({ apiKey: SIMULATOR_SECRET });
  const config = loadControlPlaneConfig({ DATABASE_URL: database.url, REDIS_URL: redisUrl, REDIS_PREFIX: prefix, PORT: "0", AUTH_FREE_FAILURES: "100000" });
  const first = await startControlPlane(config, silent);
  await applyGatewayFile(first.services.db.prisma, first.services.records, parseGatewayFile(testGatewayYaml(simulator.url)));
  controlPlanes = [first, await startControlPlane(config, silent)];
  token = (await createVendorToken(first.services.db.prisma, { vendor: "test-vendor", name: "lifecycle", scopes: ["keys:create", "keys:read", "keys:update", "keys:revoke", "usage:read"] })).plaintext;
  worker = await startBillingWorker(loadBillingWorkerConfig({ DATABASE_URL: database.url, REDIS_URL: redisUrl, REDIS_PREFIX: prefix, PORT: "0" }), silent);
  const env = { REDIS_URL: redisUrl, REDIS_PREFIX: prefix, TEST_SIMULATOR_KEY: SIMULATOR_SECRET, AUTH_FREE_FAILURES: "100000" };
  proxies = await Promise.all([spawnProxy(env), spawnProxy(env), spawnProxy(env)]);
}, 90_000);

afterAll(async () => {
  await Promise.all(proxies.map((proxy) => proxy.stop()));
  await worker?.close();
  const redis = controlPlanes[0]?.services.redis;
  const keys = redis ? await redis.keys(`${prefix}:*`) : [];
  if (redis && keys.length) await redis.del(...keys);
  for (const control of controlPlanes) await control.close();
  await simulator?.close();
  await database?.drop();
});

const prisma = () => controlPlanes[0]!.services.db.prisma;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
async function vendor(method: string, path: string, body?: unknown, options: { controlPlane?: number; headers?: Record<string, string> } = {}): Promise<{ status: number; body: any; headers: Headers }> {
  const response = await fetch(`${controlPlanes[options.controlPlane ?? 0]!.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }), ...options.headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json(), headers: response.headers };
}

async function mint(body: Record<string, unknown> = {}): Promise<{ id: string; key: string }> {
  const response = await vendor("POST", "/api/keys", { server_option: "standard", name: "lifecycle", ...body });
  expect(response.status).toBe(201);
  return { id: response.body.id, key: response.body.key };
}

interface Answer {
  status: number;
  code: string | null;
  headers: Headers;
}

async function chat(proxy: ProxyProcess, key: string): Promise<Answer> {
  const response = await fetch(`${proxy.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "gpt-test", max_tokens: 8, messages: [{ role: "user", content: "hi" }] }),
  });
  const body = (await response.json()) as { error?: { code: string } };
  return { status: response.status, code: body.error?.code ?? null, headers: response.headers };
}

/**
 * Polls every proxy until each answers as `expected` says; returns how long the slowest took
 * (ms since `since`). Fails after 3 s, so a change that never arrives is a failure, not a hang.
 */
async function onEveryProxy(key: string, expected: (answer: Answer) => boolean, since: number): Promise<number> {
  const seen = await Promise.all(
    proxies.map(async (proxy) => {
      for (;;) {
        const answer = await chat(proxy, key);
        if (expected(answer)) return Date.now() - since;
        if (Date.now() - since > 3_000) throw new Error(`proxy ${proxy.url} still answers ${answer.status} ${answer.code}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    }),
  );
  return Math.max(...seen);
}

const ok = (answer: Answer) => answer.status === 200;

describe("PATCH /api/keys/{id} reaches every proxy within a second", () => {
  it("status: disabled is 401 key_disabled everywhere, active works again everywhere", async () => {
    const { id, key } = await mint();
    expect(await onEveryProxy(key, ok, Date.now())).toBeLessThan(1_000);
    let since = Date.now();
    const disabled = await vendor("PATCH", `/api/keys/${id}`, { status: "disabled" });
    expect(disabled.status).toBe(200);
    expect(disabled.body.status).toBe("disabled");
    expect(await onEveryProxy(key, (answer) => answer.status === 401 && answer.code === "key_disabled", since)).toBeLessThan(1_000);
    since = Date.now();
    expect((await vendor("PATCH", `/api/keys/${id}`, { status: "active" }, { controlPlane: 1 })).body.status).toBe("active");
    expect(await onEveryProxy(key, ok, since)).toBeLessThan(1_000);
  });

  it("rate_limits: the new limits are what every proxy enforces and reports", async () => {
    const { id, key } = await mint();
    const since = Date.now();
    const patched = await vendor("PATCH", `/api/keys/${id}`, { rate_limits: { rpm: 777, tpm: 55_555 } });
    expect(patched.body.rate_limits).toEqual({ rpm: 777, tpm: 55_555 });
    const took = await onEveryProxy(key, (answer) => answer.headers.get("x-ratelimit-limit-requests") === "777" && answer.headers.get("x-ratelimit-limit-tokens") === "55555", since);
    expect(took).toBeLessThan(1_000);
  });

  it("quota: lowering it below the spend refuses everywhere; quota_add tops it up and the next request passes", async () => {
    const { id, key } = await mint({ quota: "1.00" });
    await onEveryProxy(key, ok, Date.now());
    await waitForLedger(id, 3);
    let since = Date.now();
    expect((await vendor("PATCH", `/api/keys/${id}`, { quota: "0.000001" })).body.quota).toBe("0.000001");
    expect(await onEveryProxy(key, (answer) => answer.status === 429 && answer.code === "insufficient_quota", since)).toBeLessThan(1_000);
    since = Date.now();
    const topped = await vendor("PATCH", `/api/keys/${id}`, { quota_add: "5.00" });
    expect(topped.body.quota).toBe("5.000001");
    expect(await onEveryProxy(key, ok, since)).toBeLessThan(1_000);
  });

  it("budget: a spent daily budget is 429 budget_exceeded everywhere, shown with used and resets_at", async () => {
    const { id, key } = await mint();
    await onEveryProxy(key, ok, Date.now());
    await waitForLedger(id, 3);
    const since = Date.now();
    const patched = await vendor("PATCH", `/api/keys/${id}`, { budget: { limit: "0.000001", period: "day" } });
    expect(patched.status).toBe(200);
    const tomorrow = new Date();
    tomorrow.setUTCHours(24, 0, 0, 0);
    expect(patched.body.budget).toMatchObject({ limit: "0.000001", period: "day", resets_at: tomorrow.toISOString() });
    expect(Number(patched.body.budget.used)).toBeGreaterThan(0);
    // The proxies' counter starts from what the period's requests settle; the three above settled.
    expect(await onEveryProxy(key, (answer) => answer.status === 429 && answer.code === "budget_exceeded", since)).toBeLessThan(1_000);
    const lifted = Date.now();
    await vendor("PATCH", `/api/keys/${id}`, { budget: null });
    expect(await onEveryProxy(key, ok, lifted)).toBeLessThan(1_000);
  });

  it("expires_at: every proxy refuses the key once the new expiry passes", async () => {
    const { id, key } = await mint();
    const expiry = Date.now() + 1_500;
    expect((await vendor("PATCH", `/api/keys/${id}`, { expires_at: new Date(expiry).toISOString() })).status).toBe(200);
    await onEveryProxy(key, ok, Date.now());
    expect(await onEveryProxy(key, (answer) => answer.status === 401 && answer.code === "invalid_api_key", expiry)).toBeLessThan(1_000);
  });

  it("name and metadata are stored and shown; revoked stays final", async () => {
    const { id } = await mint();
    const patched = await vendor("PATCH", `/api/keys/${id}`, { name: "renamed", metadata: { plan: "gold", seats: 3 } });
    expect(patched.body).toMatchObject({ name: "renamed", metadata: { plan: "gold", seats: 3 } });
    expect((await vendor("GET", `/api/keys/${id}`)).body).toMatchObject({ name: "renamed", metadata: { plan: "gold", seats: 3 } });
    expect((await vendor("DELETE", `/api/keys/${id}`)).body.status).toBe("revoked");
    const reactivate = await vendor("PATCH", `/api/keys/${id}`, { status: "active" });
    expect(reactivate.status).toBe(400);
    expect(reactivate.body.error.param).toBe("status");
  });
});

/** Waits until the ledger holds `count` requests of the key and Redis has settled them. */
async function waitForLedger(keyId: string, count: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if ((await prisma().usageRecord.count({ where: { apiKeyId: keyId } })) >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the ledger never reached ${count} rows for ${keyId}`);
}

describe("top-ups racing spending", () => {
  it("50 concurrent top-ups through two control planes and 50 requests through three proxies leave the limit and the spend exact", async () => {
    const { id, key } = await mint({ quota: "1.00" });
    const results = await Promise.all([
      ...Array.from({ length: 50 }, (_, index) => vendor("PATCH", `/api/keys/${id}`, { quota_add: "0.10" }, { controlPlane: index % 2 })),
      ...Array.from({ length: 50 }, (_, index) => chat(proxies[index % 3]!, key)),
    ]);
    expect(results.map((result) => result.status)).toEqual(Array(100).fill(200));
    const row = await prisma().apiKey.findUniqueOrThrow({ where: { id } });
    expect(row.quotaNano).toBe(6_000_000_000n);
    expect(row.revision).toBe(50);
    const record = await controlPlanes[0]!.services.records.readKey(row.keyHash);
    expect(record).toMatchObject({ quotaNano: "6000000000", revision: 50 });
    expect((await vendor("GET", `/api/keys/${id}`)).body.quota).toBe("6.000000");
    // Every request settles: the Redis spend equals the ledger's sum, nothing reserved is left.
    await waitForLedger(id, 50);
    const limits = new LimitStore(controlPlanes[0]!.services.redis, prefix);
    const deadline = Date.now() + 5_000;
    let quota = await limits.readQuota(id);
    while (quota.reserved !== 0n && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      quota = await limits.readQuota(id);
    }
    const ledger = await prisma().usageRecord.aggregate({ where: { apiKeyId: id }, _sum: { costNano: true } });
    expect(quota).toEqual({ spent: ledger._sum.costNano, reserved: 0n });
    const audit = await prisma().auditEntry.findMany({ where: { keyId: id, action: "key.updated" } });
    expect(audit).toHaveLength(50);
    expect(new Set(audit.map((entry) => (entry.changes as { quota: string }).quota)).size).toBe(50);
  }, 30_000);
});

describe("POST /api/keys/{id}/rotate", () => {
  it("without grace: the old secret is refused everywhere within a second, the new one works, the key keeps its id and history", async () => {
    const { id, key } = await mint();
    await onEveryProxy(key, ok, Date.now());
    const since = Date.now();
    const rotated = await vendor("POST", `/api/keys/${id}/rotate`);
    expect(rotated.status).toBe(200);
    expect(rotated.body).toMatchObject({ id, object: "api_key", status: "active", prefix: rotated.body.key.slice(0, 7) });
    expect(rotated.body.key).not.toBe(key);
    expect(await onEveryProxy(key, (answer) => answer.status === 401, since)).toBeLessThan(1_000);
    expect(await onEveryProxy(rotated.body.key, ok, since)).toBeLessThan(1_000);
    await waitForLedger(id, 6);
  });

  it("with grace: both secrets work until the grace ends, then only the new one; a second rotation ends the first grace at once", async () => {
    const { id, key } = await mint();
    const rotated = await vendor("POST", `/api/keys/${id}/rotate`, { grace_seconds: 2 });
    const graceEnd = Date.now() + 2_000;
    await onEveryProxy(key, ok, Date.now());
    await onEveryProxy(rotated.body.key, ok, Date.now());
    expect(await onEveryProxy(key, (answer) => answer.status === 401, graceEnd)).toBeLessThan(1_000);
    await onEveryProxy(rotated.body.key, ok, Date.now());

    const third = await vendor("POST", `/api/keys/${id}/rotate`, { grace_seconds: 3600 });
    const again = await vendor("POST", `/api/keys/${id}/rotate`, { grace_seconds: 3600 });
    const since = Date.now();
    // `third` is in grace behind `again`; the secret `third` replaced lost its grace at once.
    expect(await onEveryProxy(rotated.body.key, (answer) => answer.status === 401, since)).toBeLessThan(1_000);
    await onEveryProxy(third.body.key, ok, since);
    await onEveryProxy(again.body.key, ok, since);
  });

  it("is idempotent with an Idempotency-Key: one rotation, the same new secret in every answer", async () => {
    const { id } = await mint();
    const headers = { "idempotency-key": `rotate-${randomUUID()}` };
    const answers = await Promise.all([1, 2, 3].map((index) => vendor("POST", `/api/keys/${id}/rotate`, { grace_seconds: 0 }, { headers, controlPlane: index % 2 })));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    expect(new Set(answers.map((answer) => answer.body.key)).size).toBe(1);
    const row = await prisma().apiKey.findUniqueOrThrow({ where: { id } });
    expect(row.keyHash).toBe(hashSecret(answers[0]!.body.key));
    expect(await prisma().auditEntry.count({ where: { keyId: id, action: "key.rotated" } })).toBe(1);
  });
});

describe("the audit log", () => {
  it("holds every change with the acting token and request id, never a secret", async () => {
    const { id, key } = await mint({ quota: "2.00" });
    const patch = await vendor("PATCH", `/api/keys/${id}`, { name: "audited", quota_add: "1.00", budget: { limit: "3.00", period: "week" } });
    const rotate = await vendor("POST", `/api/keys/${id}/rotate`, { grace_seconds: 60 });
    const revoke = await vendor("DELETE", `/api/keys/${id}`);
    const entries = await prisma().auditEntry.findMany({ where: { keyId: id }, orderBy: { createdAt: "asc" } });
    expect(entries.map((entry) => entry.action)).toEqual(["key.created", "key.updated", "key.rotated", "key.revoked"]);
    const tokenRow = await prisma().vendorToken.findUniqueOrThrow({ where: { tokenHash: hashSecret(token) } });
    expect(new Set(entries.map((entry) => entry.tokenId))).toEqual(new Set([tokenRow.id]));
    expect(entries.slice(1).map((entry) => entry.requestId)).toEqual([patch, rotate, revoke].map((answer) => answer.headers.get("x-request-id")));
    expect(entries[1]!.changes).toEqual({ name: "audited", quota_add: "1.000000", quota: "3.000000", budget: { limit: "3.000000", period: "week" } });
    const text = JSON.stringify(entries);
    for (const secret of [key, rotate.body.key, hashSecret(key), hashSecret(rotate.body.key)]) expect(text).not.toContain(secret);
  });
});

describe("PATCH bad input: a 4xx envelope naming the field, never a 500", () => {
  it("refuses each with the right status and param", async () => {
    const { id } = await mint();
    const unlimited = id;
    const cases: [string, unknown, number, string | null][] = [
      [`/api/keys/${id}`, { colour: "red" }, 400, "colour"],
      [`/api/keys/${id}`, { quota_add: "-1.00" }, 400, "quota_add"],
      [`/api/keys/${id}`, { quota_add: "1e3" }, 400, "quota_add"],
      [`/api/keys/${id}`, { quota_add: 5 }, 400, "quota_add"],
      [`/api/keys/${unlimited}`, { quota_add: "1.00" }, 400, "quota_add"],
      [`/api/keys/${id}`, { quota: "1.00", quota_add: "1.00" }, 400, "quota_add"],
      [`/api/keys/${id}`, { budget: { limit: "1.00", period: "year" } }, 400, "budget.period"],
      [`/api/keys/${id}`, { budget: { limit: "-1", period: "day" } }, 400, "budget.limit"],
      [`/api/keys/${id}`, { status: "revoked" }, 400, "status"],
      [`/api/keys/${id}`, { name: "nul\u0000byte" }, 400, "name"],
      [`/api/keys/${id}`, { metadata: { note: "nul\u0000" } }, 400, "metadata"],
      [`/api/keys/${id}`, { metadata: JSON.parse(`${'{"a":'.repeat(20)}1${"}".repeat(20)}`) }, 400, "metadata"],
      // Past the body's nesting bound (128) the JSON itself is refused, before any field is read.
      [`/api/keys/${id}`, { metadata: JSON.parse(`${'{"a":'.repeat(200)}1${"}".repeat(200)}`) }, 400, null],
      [`/api/keys/${id}`, { rate_limits: { rpm: 10_000_000_000 } }, 400, "rate_limits.rpm"],
      [`/api/keys/${id}/rotate`, { grace_seconds: 86_401 }, 400, "grace_seconds"],
      [`/api/keys/${id}/rotate`, { grace_seconds: -1 }, 400, "grace_seconds"],
    ];
    for (const [path, body, status, param] of cases) {
      const method = path.endsWith("/rotate") ? "POST" : "PATCH";
      const response = await vendor(method, path, body);
      expect({ path, body: JSON.stringify(body).slice(0, 60), status: response.status, param: response.body.error?.param }).toEqual({ path, body: JSON.stringify(body).slice(0, 60), status, param });
      expect(response.body.type).toBe("error");
    }
    // Nothing changed, and nothing was audited.
    expect(await prisma().auditEntry.count({ where: { keyId: id, action: "key.updated" } })).toBe(0);
  });

  it("another vendor's key is 404 like a missing one; a malformed id or path encoding is 4xx", async () => {
    const other = await prisma().vendor.create({ data: { id: `vnd_${randomUUID().replaceAll("-", "")}`, name: `other-${randomUUID()}` } });
    const theirs = await mint();
    const otherToken = (await createVendorToken(prisma(), { vendor: other.name, name: "other", scopes: ["keys:update", "keys:read"] })).plaintext;
    for (const [method, path, body] of [["PATCH", `/api/keys/${theirs.id}`, { name: "x" }], ["POST", `/api/keys/${theirs.id}/rotate`, {}], ["PATCH", "/api/keys/key_missing", { name: "x" }]] as const) {
      const response = await fetch(`${controlPlanes[0]!.url}${path}`, { method, headers: { authorization: `Bearer ${otherToken}`, "content-type": "application/json" }, body: JSON.stringify(body) });
      expect(response.status).toBe(404);
      expect(((await response.json()) as { error: { type: string } }).error.type).toBe("not_found_error");
    }
    for (const path of ["/api/keys/%E0%A4%A", "/api/keys/%00", "/api/keys/key%2F..%2Fx"]) {
      const response = await vendor("PATCH", path, { name: "x" });
      expect(response.status, path).toBeGreaterThanOrEqual(400);
      expect(response.status, path).toBeLessThan(500);
      expect(response.body.type).toBe("error");
    }
  });

  it("a token without keys:update gets 403 missing_scope", async () => {
    const { id } = await mint();
    const readOnly = (await createVendorToken(prisma(), { vendor: "test-vendor", name: "ro", scopes: ["keys:read"] })).plaintext;
    for (const [method, path] of [["PATCH", `/api/keys/${id}`], ["POST", `/api/keys/${id}/rotate`]] as const) {
      const response = await fetch(`${controlPlanes[0]!.url}${path}`, { method, headers: { authorization: `Bearer ${readOnly}`, "content-type": "application/json" }, body: "{}" });
      expect(response.status).toBe(403);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe("missing_scope");
    }
  });
});

describe("the vendor's reports after this file's real traffic", () => {
  it("usage totals == the sum of every group == the sum of the request log == the ledger, to the nano, for every group_by", async () => {
    // Everything above has been answered; wait until the worker has written all of it.
    let count = -1;
    for (let stable = 0; stable < 4; ) {
      const now = await prisma().usageRecord.count();
      stable = now === count ? stable + 1 : 0;
      count = now;
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    expect(count).toBeGreaterThan(50);
    const from = "2000-01-01T00:00:00Z";
    const to = new Date(Date.now() + 60_000).toISOString();
    const ledger = await prisma().usageRecord.aggregate({ _sum: { costNano: true, inputTokens: true, outputTokens: true }, _count: { _all: true } });
    const logged = { requests: 0, cost: 0n, input: 0, output: 0, streams: 0 };
    for (let cursor: string | null = null, first = true; first || cursor !== null; first = false) {
      const page = await vendor("GET", `/api/requests?from=${from}&to=${to}&limit=100${cursor ? `&cursor=${cursor}` : ""}`);
      expect(page.status).toBe(200);
      for (const row of page.body.data) {
        logged.requests += 1;
        logged.cost += BigInt(row.cost_nano);
        logged.input += row.input_tokens;
        logged.output += row.output_tokens;
        if (row.stream) logged.streams += 1;
      }
      cursor = page.body.next_cursor;
    }
    expect(logged).toEqual({ requests: ledger._count._all, cost: ledger._sum.costNano, input: Number(ledger._sum.inputTokens), output: Number(ledger._sum.outputTokens), streams: 0 });
    for (const groupBy of ["day", "model", "key", "server_option"]) {
      const report = await vendor("GET", `/api/usage?from=${from}&to=${to}&group_by=${groupBy}`);
      expect(report.status).toBe(200);
      expect(report.body.totals).toMatchObject({ requests: ledger._count._all, cost_nano: ledger._sum.costNano!.toString(), input_tokens: Number(ledger._sum.inputTokens), output_tokens: Number(ledger._sum.outputTokens) });
      const rows = report.body.data as { requests: number; cost_nano: string }[];
      expect(rows.reduce((sum, row) => sum + row.requests, 0)).toBe(ledger._count._all);
      expect(rows.reduce((sum, row) => sum + BigInt(row.cost_nano), 0n)).toBe(ledger._sum.costNano);
    }
  }, 30_000);

  it("the audit log lists this vendor's changes newest first, through its own pages", async () => {
    const seen: string[] = [];
    for (let cursor: string | null = null, first = true; first || cursor !== null; first = false) {
      const page = await vendor("GET", `/api/audit-log?limit=50${cursor ? `&cursor=${cursor}` : ""}`);
      expect(page.status).toBe(200);
      seen.push(...page.body.data.map((entry: { id: string }) => entry.id));
      cursor = page.body.next_cursor;
    }
    const stored = await prisma().auditEntry.findMany({ orderBy: [{ createdAt: "desc" }, { id: "desc" }], select: { id: true } });
    expect(seen).toEqual(stored.map((entry) => entry.id));
  });
});
