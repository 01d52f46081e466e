import { formatUsd } from "@gateway/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeCursor } from "../vendors/pagination.ts";
import { requestListSchema, type RequestObject } from "../vendors/report-schemas.ts";
import { createTestKey, recordRequests, type LedgerRequest, type RequestSpec, type TestKey } from "./ledger-fixture.ts";
import { expectError, vendorAuthChecks } from "./vendor-api-auth-checks.ts";
import { startVendorApiFixture, type VendorApiFixture } from "./vendor-api-fixture.ts";

const BASE = Date.parse("2031-07-01T00:00:00Z");
const STATUSES = ["ok", "ok", "ok", "error", "ok", "client_aborted"] as const;

let fixture: VendorApiFixture;
let standardKey: TestKey;
let premiumKey: TestKey;
let globexKey: TestKey;
let ledger: LedgerRequest[];

beforeAll(async () => {
  fixture = await startVendorApiFixture();
  const { prisma } = fixture.control.services.db;
  standardKey = await createTestKey(prisma, "acme", "standard", "standard key");
  premiumKey = await createTestKey(prisma, "acme", "premium", "premium key");
  globexKey = await createTestKey(prisma, "globex", "standard", "globex key");
  const specs: RequestSpec[] = [];
  for (let index = 0; index < 60; index += 1) {
    specs.push({
      key: index % 4 === 3 ? premiumKey : standardKey,
      // Requests 0, 5 and 10 end at the same instant, as do 15, 20 and 25, ...: ties are ordered by id, across pages too.
      finishedAt: new Date(index % 5 === 0 ? BASE + Math.floor(index / 15) * 3_600_000 : BASE + Math.floor(index / 3) * 3_600_000 + index * 1_000),
      model: index % 4 === 3 || index % 5 === 1 ? "claude-large" : "gpt-small",
      status: STATUSES[index % STATUSES.length],
    });
    if (index % 6 === 0) specs.push({ key: globexKey, finishedAt: new Date(BASE + index * 1_800_000) });
  }
  ledger = await recordRequests(prisma, specs);
  expect(ledger.length - new Set(ledger.map((request) => request.event.finishedAt)).size).toBeGreaterThanOrEqual(8);
}, 120_000);
afterAll(async () => {
  await fixture?.close();
});

/** The ledger's requests of a vendor matching `keep`, in the log's order: newest first, then id descending. */
function expectedIds(vendorId: string, keep: (request: LedgerRequest) => boolean = () => true): string[] {
  return ledger
    .filter((request) => request.event.vendorId === vendorId && keep(request))
    .sort((a, b) => b.event.finishedAt - a.event.finishedAt || (a.event.requestId < b.event.requestId ? 1 : -1))
    .map((request) => request.event.requestId);
}

/** Follows next_cursor to the end; fails on a duplicate or a page that breaks its envelope. */
async function allPages(query: string, token = fixture.acme["usage:read"]): Promise<RequestObject[]> {
  const items: RequestObject[] = [];
  let cursor: string | null = null;
  do {
    const response = await fixture.call("GET", `/api/requests?${query}${cursor ? `&cursor=${cursor}` : ""}`, { token });
    expect(response.status).toBe(200);
    const page = requestListSchema.parse(response.body);
    expect(page.has_more).toBe(page.next_cursor !== null);
    items.push(...page.data);
    cursor = page.next_cursor;
  } while (cursor);
  expect(new Set(items.map((item) => item.id)).size).toBe(items.length);
  return items;
}

describe("GET /api/requests", () => {
  vendorAuthChecks(() => fixture, { method: "GET", path: "/api/requests", scope: "usage:read" });

  it("lists the vendor's requests newest first, 20 a page by default", async () => {
    const response = await fixture.call("GET", "/api/requests", { token: fixture.acme["usage:read"] });
    expect(response.status).toBe(200);
    expect(response.body.object).toBe("list");
    expect(response.body.data.map((item: RequestObject) => item.id)).toEqual(expectedIds(standardKey.vendorId).slice(0, 20));
    expect(response.body.has_more).toBe(true);
  });

  it("pages through everything without a gap or a duplicate, whatever the page size", async () => {
    for (const limit of [1, 7, 100]) {
      expect((await allPages(`limit=${limit}`)).map((item) => item.id)).toEqual(expectedIds(standardKey.vendorId));
    }
  });

  it("shows each request as the ledger holds it", async () => {
    const request = ledger.find((candidate) => candidate.event.stream && candidate.event.ttfbMs !== null && candidate.event.vendorId === standardKey.vendorId)!;
    const response = await fixture.call("GET", `/api/requests?id=${request.event.requestId}`);
    expect(response.body.data).toEqual([
      {
        id: request.event.requestId,
        object: "request",
        key_id: request.key.id,
        model: request.event.model,
        endpoint: request.event.endpoint,
        stream: true,
        status: request.event.status,
        input_tokens: request.event.usage.inputTokens,
        output_tokens: request.event.usage.outputTokens,
        cached_input_tokens: request.event.usage.cachedInputTokens,
        cache_write_tokens: request.event.usage.cacheWriteTokens,
        cache_write_1h_tokens: request.event.usage.cacheWrite1hTokens,
        reasoning_tokens: request.event.usage.reasoningTokens,
        web_search_requests: request.event.usage.webSearchRequests,
        images: request.event.usage.images,
        cost: formatUsd(request.costNano),
        cost_nano: request.costNano.toString(),
        estimated: request.event.estimated,
        ttfb_ms: request.event.ttfbMs,
        duration_ms: request.event.finishedAt - request.event.startedAt,
        created_at: new Date(request.event.startedAt).toISOString(),
        finished_at: new Date(request.event.finishedAt).toISOString(),
        attempts: request.event.attempts.map((attempt) => ({
          upstream: attempt.upstream,
          upstream_model: attempt.upstreamModel,
          cause: attempt.cause,
          status: attempt.status,
          duration_ms: attempt.durationMs,
          ttfb_ms: attempt.ttfbMs,
        })),
      },
    ]);
    expect(response.body.has_more).toBe(false);
    const unstreamed = ledger.find((candidate) => !candidate.event.stream && candidate.event.vendorId === standardKey.vendorId)!;
    expect((await fixture.call("GET", `/api/requests?id=${unstreamed.event.requestId}`)).body.data[0].stream).toBe(false);
  });

  it("shows each request's upstream attempts in order: a failover's two, none for a request recorded without them", async () => {
    const ours = (request: LedgerRequest) => request.event.vendorId === standardKey.vendorId;
    const failover = ledger.find((request) => ours(request) && request.event.attempts.length === 2)!;
    const [failed] = (await fixture.call("GET", `/api/requests?id=${failover.event.requestId}`)).body.data[0].attempts;
    expect(failed).toEqual({ upstream: "simulator-backup", upstream_model: "sim-small-b", cause: "http_5xx", status: 503, duration_ms: 12, ttfb_ms: null });
    const page = requestListSchema.parse((await fixture.call("GET", `/api/requests?id=${failover.event.requestId}`)).body);
    expect(page.data[0]!.attempts.map((attempt) => attempt.cause)).toEqual(["http_5xx", "ok"]);
    const older = ledger.find((request) => ours(request) && request.event.attempts.length === 0)!;
    expect((await fixture.call("GET", `/api/requests?id=${older.event.requestId}`)).body.data[0].attempts).toEqual([]);
  });

  it("filters by key, model, status and window, alone and together", async () => {
    const from = new Date(BASE + 5 * 3_600_000);
    const to = new Date(BASE + 14 * 3_600_000);
    const inWindow = (request: LedgerRequest) => request.event.finishedAt >= from.getTime() && request.event.finishedAt < to.getTime();
    const cases: [string, (request: LedgerRequest) => boolean][] = [
      [`key_id=${premiumKey.id}`, (request) => request.key.id === premiumKey.id],
      ["model=claude-large", (request) => request.event.model === "claude-large"],
      ["status=error", (request) => request.event.status === "error"],
      ["status=client_aborted", (request) => request.event.status === "client_aborted"],
      [`from=${from.toISOString()}&to=${to.toISOString()}`, inWindow],
      [`key_id=${standardKey.id}&model=gpt-small&status=ok`, (request) => request.key.id === standardKey.id && request.event.model === "gpt-small" && request.event.status === "ok"],
      [`model=claude-large&from=${from.toISOString()}`, (request) => request.event.model === "claude-large" && request.event.finishedAt >= from.getTime()],
    ];
    for (const [query, keep] of cases) {
      const expected = expectedIds(standardKey.vendorId, keep);
      expect(expected.length, query).toBeGreaterThan(0);
      expect((await allPages(`${query}&limit=4`)).map((item) => item.id), query).toEqual(expected);
    }
  });

  it("an id, key or model the vendor does not have matches nothing", async () => {
    const globexRequest = ledger.find((request) => request.key.id === globexKey.id)!;
    for (const query of [`id=${globexRequest.event.requestId}`, `key_id=${globexKey.id}`, "key_id=key_nope", "id=req_nope", "model=no-such-model", "key_id=not-even-an-id"]) {
      const response = await fixture.call("GET", `/api/requests?${query}`);
      expect(response.status, query).toBe(200);
      expect(response.body, query).toEqual({ object: "list", data: [], has_more: false, next_cursor: null });
    }
  });

  it("shows another vendor's requests to that vendor only", async () => {
    const acme = await allPages("limit=100");
    expect(acme.map((item) => item.key_id)).not.toContain(globexKey.id);
    const globex = await allPages("limit=3", fixture.globex);
    expect(globex.map((item) => item.id)).toEqual(expectedIds(globexKey.vendorId));
  });

  it("400 naming the parameter for a bad filter, limit or cursor", async () => {
    const cases: [string, string][] = [
      ["status=failed", "status"],
      ["limit=0", "limit"],
      ["limit=101", "limit"],
      ["limit=ten", "limit"],
      ["from=2026-13-45", "from"],
      ["to=99999-01-01", "to"],
      ["to=2031-07-01T00:00:00", "to"],
      ["from=2031-07-02&to=2031-07-01", "from"],
      ["cursor=bm90LWEtY3Vyc29y", "cursor"],
      ["cursor=%25%25", "cursor"],
      [`cursor=${encodeCursor({ finishedAt: "0000-01-01T00:00:00Z", id: "req_x" })}`, "cursor"],
      [`cursor=${encodeCursor({ finishedAt: "2031-07-01T00:00:00Z", id: "req_\u0000" })}`, "cursor"],
      ["key_id=key_%00", "key_id"],
      ["model=%00", "model"],
      ["id=", "id"],
    ];
    for (const [query, param] of cases) {
      const response = await fixture.call("GET", `/api/requests?${query}`);
      expectError(response, 400, "invalid_body");
      expect(response.body.error.param, query).toBe(param);
    }
  });
});
