import { formatUsd } from "@gateway/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { usageReportSchema, type UsageReport, type UsageReportRow } from "../vendors/report-schemas.ts";
import { createTestKey, recordRequests, type LedgerRequest, type RequestSpec, type TestKey } from "./ledger-fixture.ts";
import { expectError, vendorAuthChecks } from "./vendor-api-auth-checks.ts";
import { startVendorApiFixture, type VendorApiFixture } from "./vendor-api-fixture.ts";

const DAY_MS = 86_400_000;
const BASE = Date.parse("2031-05-10T00:00:00Z");
const GROUPS = ["day", "model", "key", "server_option"] as const;

let fixture: VendorApiFixture;
let acmeKeys: TestKey[];
let globexKey: TestKey;
let ledger: LedgerRequest[];

beforeAll(async () => {
  fixture = await startVendorApiFixture();
  const { prisma } = fixture.control.services.db;
  acmeKeys = [
    await createTestKey(prisma, "acme", "standard", "alpha"),
    await createTestKey(prisma, "acme", "standard", "beta"),
    await createTestKey(prisma, "acme", "premium", "gamma"),
  ];
  globexKey = await createTestKey(prisma, "globex", "standard", "globex key");
  const specs: RequestSpec[] = [];
  // Five days of acme traffic, plus globex's at the same instants; some exactly on midnight and 1 ms before it.
  for (let index = 0; index < 240; index += 1) {
    const finishedAt = new Date(BASE + Math.floor((index * 5 * DAY_MS) / 240) + ((index * 7_777) % 600_000));
    specs.push({ key: acmeKeys[index % 3]!, finishedAt, model: index % 3 === 2 || index % 4 === 0 ? "claude-large" : "gpt-small", status: index % 9 === 0 ? "error" : "ok" });
    if (index % 4 === 0) specs.push({ key: globexKey, finishedAt, model: "gpt-small" });
  }
  for (const day of [1, 2, 3]) {
    specs.push({ key: acmeKeys[0]!, finishedAt: new Date(BASE + day * DAY_MS) }, { key: acmeKeys[1]!, finishedAt: new Date(BASE + day * DAY_MS - 1) });
  }
  ledger = await recordRequests(prisma, specs);
}, 120_000);
afterAll(async () => {
  await fixture?.close();
});

/** The report the ledger implies, summed here in nano-USD from the events themselves. */
function expectedReport(vendorId: string, from: Date, to: Date, groupBy: (typeof GROUPS)[number]): UsageReport {
  const inWindow = ledger.filter(({ event }) => event.vendorId === vendorId && event.finishedAt >= from.getTime() && event.finishedAt < to.getTime());
  const groups = new Map<string, LedgerRequest[]>();
  for (const request of inWindow) {
    const group = { day: new Date(request.event.finishedAt).toISOString().slice(0, 10), model: request.event.model, key: request.key.id, server_option: request.key.serverOption }[groupBy];
    groups.set(group, [...(groups.get(group) ?? []), request]);
  }
  const data = [...groups.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([group, requests]): UsageReportRow => {
      const key = groupBy === "key" ? { name: requests[0]!.key.name, prefix: requests[0]!.key.prefix } : {};
      return { group, ...key, ...figures(requests) };
    });
  return { object: "usage_report", from: from.toISOString(), to: to.toISOString(), group_by: groupBy, totals: figures(inWindow), data };
}

function figures(requests: LedgerRequest[]) {
  const sum = (pick: (request: LedgerRequest) => number) => requests.reduce((total, request) => total + pick(request), 0);
  const costNano = requests.reduce((total, request) => total + request.costNano, 0n);
  return {
    requests: requests.length,
    input_tokens: sum((request) => request.event.usage.inputTokens),
    output_tokens: sum((request) => request.event.usage.outputTokens),
    cached_input_tokens: sum((request) => request.event.usage.cachedInputTokens),
    cache_write_tokens: sum((request) => request.event.usage.cacheWriteTokens),
    cache_write_1h_tokens: sum((request) => request.event.usage.cacheWrite1hTokens),
    reasoning_tokens: sum((request) => request.event.usage.reasoningTokens),
    images: sum((request) => request.event.usage.images),
    web_search_requests: sum((request) => request.event.usage.webSearchRequests),
    cost: formatUsd(costNano),
    cost_nano: costNano.toString(),
  };
}

const FIGURES = ["requests", "input_tokens", "output_tokens", "cached_input_tokens", "cache_write_tokens", "cache_write_1h_tokens", "reasoning_tokens", "images", "web_search_requests"] as const;

/** Every page of /api/requests over the window, summed the same way. */
async function requestLogTotals(token: string, from: string, to: string) {
  const ids = new Set<string>();
  const totals = Object.fromEntries(FIGURES.map((field) => [field, 0])) as Record<(typeof FIGURES)[number], number>;
  let costNano = 0n;
  let cursor: string | null = null;
  do {
    const page = await fixture.call("GET", `/api/requests?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}&limit=17${cursor ? `&cursor=${cursor}` : ""}`, { token });
    expect(page.status).toBe(200);
    for (const item of page.body.data) {
      expect(ids.has(item.id)).toBe(false);
      ids.add(item.id);
      totals.requests += 1;
      for (const field of FIGURES.slice(1)) totals[field] += item[field];
      costNano += BigInt(item.cost_nano);
    }
    cursor = page.body.next_cursor;
  } while (cursor);
  return { ...totals, cost: formatUsd(costNano), cost_nano: costNano.toString() };
}

const WINDOWS: [string, string, string][] = [
  ["aligned to midnight", "2031-05-11T00:00:00Z", "2031-05-14T00:00:00Z"],
  ["not aligned at either edge", "2031-05-10T13:17:00.500Z", "2031-05-13T08:00:00Z"],
  ["inside one day", "2031-05-12T03:00:00Z", "2031-05-12T20:00:00Z"],
  ["across one midnight, no whole day", "2031-05-11T18:00:00Z", "2031-05-12T06:00:00Z"],
  ["a day plus a millisecond on each side", "2031-05-11T23:59:59.999Z", "2031-05-13T00:00:00.001Z"],
  ["everything, as dates", "2031-05-01", "2031-06-01"],
];

describe("GET /api/usage", () => {
  vendorAuthChecks(() => fixture, { method: "GET", path: "/api/usage", scope: "usage:read" });

  for (const [label, from, to] of WINDOWS) {
    it(`window ${label}: every group_by equals the ledger, the rows and the request log, to the nano`, async () => {
      const window = { from: new Date(from.length === 10 ? `${from}T00:00:00Z` : from), to: new Date(to.length === 10 ? `${to}T00:00:00Z` : to) };
      const { prisma } = fixture.control.services.db;
      const sql = await prisma.usageRecord.aggregate({
        where: { vendorId: acmeKeys[0]!.vendorId, finishedAt: { gte: window.from, lt: window.to } },
        _count: { _all: true },
        _sum: { costNano: true, inputTokens: true, outputTokens: true },
      });
      const fromLog = await requestLogTotals(fixture.acme["usage:read"], from, to);
      for (const groupBy of GROUPS) {
        const response = await fixture.call("GET", `/api/usage?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}&group_by=${groupBy}`, { token: fixture.acme["usage:read"] });
        expect(response.status).toBe(200);
        const report = usageReportSchema.parse(response.body);
        expect(report).toEqual(expectedReport(acmeKeys[0]!.vendorId, window.from, window.to, groupBy));
        // The totals are the rows' sum, the ledger's SQL sum and the request log's sum, to the nano.
        expect(report.totals.cost_nano).toBe(report.data.reduce((total, row) => total + BigInt(row.cost_nano), 0n).toString());
        for (const field of FIGURES) expect(report.totals[field]).toBe(report.data.reduce((total, row) => total + row[field], 0));
        expect(report.totals.cost_nano).toBe((sql._sum.costNano ?? 0n).toString());
        expect([report.totals.requests, report.totals.input_tokens, report.totals.output_tokens]).toEqual([sql._count._all, Number(sql._sum.inputTokens ?? 0), Number(sql._sum.outputTokens ?? 0)]);
        expect(fromLog).toEqual(report.totals);
      }
      expect(fromLog.requests).toBeGreaterThan(0);
    });
  }

  it("group_by=key names each key; server_option sums its keys", async () => {
    const response = await fixture.call("GET", "/api/usage?from=2031-05-01&to=2031-06-01&group_by=key");
    expect(response.body.data.map((row: UsageReportRow) => [row.group, row.name, row.prefix])).toEqual(
      [...acmeKeys].sort((a, b) => (a.id < b.id ? -1 : 1)).map((key) => [key.id, key.name, key.prefix]),
    );
    const options = await fixture.call("GET", "/api/usage?from=2031-05-01&to=2031-06-01&group_by=server_option");
    expect(options.body.data.map((row: UsageReportRow) => row.group)).toEqual(["premium", "standard"]);
  });

  it("shows another vendor's consumption to that vendor only", async () => {
    const acme = await fixture.call("GET", "/api/usage?from=2031-05-01&to=2031-06-01&group_by=key");
    expect(acme.body.data.map((row: UsageReportRow) => row.group)).not.toContain(globexKey.id);
    const globex = await fixture.call("GET", "/api/usage?from=2031-05-01&to=2031-06-01&group_by=key", { token: fixture.globex });
    expect(globex.body).toEqual(expectedReport(globexKey.vendorId, new Date("2031-05-01T00:00:00Z"), new Date("2031-06-01T00:00:00Z"), "key"));
    expect(globex.body.data.map((row: UsageReportRow) => row.group)).toEqual([globexKey.id]);
  });

  it("defaults to the 30 days before now, by day", async () => {
    const { prisma } = fixture.control.services.db;
    const key = await createTestKey(prisma, "acme", "economy", "recent");
    const now = Date.now();
    await recordRequests(prisma, [
      { key, finishedAt: new Date(now - 3_600_000), costNano: 1_500n },
      { key, finishedAt: new Date(now - 31 * DAY_MS), costNano: 7_000n },
    ]);
    const response = await fixture.call("GET", "/api/usage");
    expect(response.status).toBe(200);
    const to = Date.parse(response.body.to);
    expect(Math.abs(to - Date.now())).toBeLessThan(60_000);
    expect(Date.parse(response.body.from)).toBe(to - 30 * DAY_MS);
    expect(response.body.group_by).toBe("day");
    expect(response.body.totals).toMatchObject({ requests: 1, cost: "0.000002", cost_nano: "1500" });
    expect(response.body.data).toEqual([expect.objectContaining({ group: new Date(now - 3_600_000).toISOString().slice(0, 10), requests: 1 })]);
  });

  it("the earliest and latest instants a window may have", async () => {
    const early = await fixture.call("GET", "/api/usage?to=0001-01-05&group_by=model");
    expect(early.status).toBe(200);
    expect(early.body).toMatchObject({ from: "0001-01-01T00:00:00.000Z", to: "0001-01-05T00:00:00.000Z", data: [] });
    const wide = await fixture.call("GET", "/api/usage?from=0001-01-01&to=9999-12-31T23:59:59.999Z&group_by=server_option");
    expect(wide.status).toBe(200);
    expect(wide.body.totals.requests).toBeGreaterThan(ledger.length / 2);
  });

  it("an empty window has zero totals and no rows", async () => {
    const response = await fixture.call("GET", "/api/usage?from=2031-05-11T10:00:00Z&to=2031-05-11T10:00:00Z&group_by=model");
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual([]);
    expect(response.body.totals).toEqual({ requests: 0, input_tokens: 0, output_tokens: 0, cached_input_tokens: 0, cache_write_tokens: 0, cache_write_1h_tokens: 0, reasoning_tokens: 0, images: 0, web_search_requests: 0, cost: "0.000000", cost_nano: "0" });
  });

  it("400 naming the parameter for a bad group, date or window", async () => {
    const cases: [string, string][] = [
      ["group_by=week", "group_by"],
      ["from=2026-13-45", "from"],
      ["from=2026-02-30T00:00:00Z", "from"],
      ["to=99999-01-01", "to"],
      ["to=99999-01-01T00:00:00Z", "to"],
      ["from=yesterday", "from"],
      ["from=0000-01-01", "from"],
      ["from=2031-05-02&to=2031-05-01", "from"],
      ["from=2031-05-02&from=2031-05-03", "from"],
    ];
    for (const [query, param] of cases) {
      const response = await fixture.call("GET", `/api/usage?${query}`);
      expectError(response, 400, "invalid_body");
      expect(response.body.error.param, query).toBe(param);
    }
  });
});
