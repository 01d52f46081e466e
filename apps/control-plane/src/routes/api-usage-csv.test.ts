import { parse } from "csv-parse/sync";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestKey, recordRequests, type TestKey } from "./ledger-fixture.ts";
import { csvLine, guardCell, unguardCell } from "./api-usage-csv-writer.ts";
import { startVendorApiFixture, type VendorApiFixture } from "./vendor-api-fixture.ts";

const DAY_MS = 86_400_000;
const BASE = Date.parse("2031-06-10T00:00:00Z");
/** Two partial days at the edges and whole days between: both halves of the report's statement. */
const FROM = new Date(BASE + 5 * 3_600_000).toISOString();
const TO = new Date(BASE + 4 * DAY_MS + 7 * 3_600_000).toISOString();
/** A key name a spreadsheet would misread in every way: a formula, a comma, quotes and a line break. */
const NASTY = '=HYPERLINK("http://x","a, b")\r\n"quoted"';

let fixture: VendorApiFixture;
let keys: TestKey[];

beforeAll(async () => {
  fixture = await startVendorApiFixture();
  const { prisma } = fixture.control.services.db;
  keys = [
    await createTestKey(prisma, "acme", "standard", NASTY),
    await createTestKey(prisma, "acme", "premium", "-1+2"),
    await createTestKey(prisma, "acme", "standard", "plain"),
  ];
  // Two of the keys belong to one customer, the third to none (group_by=customer: the customer and "none").
  const acme = await prisma.vendor.findUniqueOrThrow({ where: { name: "acme" } });
  const customer = await prisma.customer.create({ data: { id: `cus_${"c".repeat(32)}`, vendorId: acme.id, name: "CSV customer" } });
  await prisma.apiKey.updateMany({ where: { id: { in: [keys[0]!.id, keys[1]!.id] } }, data: { customerId: customer.id } });
  const globex = await createTestKey(prisma, "globex", "standard", "globex");
  const specs = [];
  for (let index = 0; index < 300; index += 1) {
    const finishedAt = new Date(BASE + Math.floor((index * 5 * DAY_MS) / 300) + ((index * 9_311) % 700_000));
    specs.push({ key: keys[index % 3]!, finishedAt, model: index % 4 === 0 ? "claude-large" : "gpt-small", status: index % 10 === 0 ? ("error" as const) : ("ok" as const) });
    if (index % 5 === 0) specs.push({ key: globex, finishedAt });
  }
  await recordRequests(prisma, specs);
}, 120_000);
afterAll(async () => {
  await fixture?.close();
});

async function csv(path: string, token = fixture.acme.all): Promise<{ status: number; type: string | null; disposition: string | null; rows: string[][]; text: string }> {
  const response = await fetch(`${fixture.control.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  const text = await response.text();
  const rows = response.status === 200 ? (parse(text, { relax_column_count: false }) as string[][]) : [];
  return { status: response.status, type: response.headers.get("content-type"), disposition: response.headers.get("content-disposition"), rows, text };
}

/** A CSV's rows as objects of its header's fields, each cell un-guarded. */
function records(rows: string[][]): Record<string, string>[] {
  const [header, ...body] = rows;
  return body.map((row) => Object.fromEntries(header!.map((field, index) => [field, unguardCell(row[index]!)])));
}

const asCell = (value: unknown): string => (value === null || value === undefined ? "" : typeof value === "object" ? JSON.stringify(value) : String(value));

describe("GET /api/usage.csv", () => {
  it.each(["day", "model", "key", "server_option", "customer"] as const)("group_by=%s: the JSON report's rows, columns named as its fields, summing to its totals", async (groupBy) => {
    const query = `from=${FROM}&to=${TO}&group_by=${groupBy}`;
    const json = (await fixture.call("GET", `/api/usage?${query}`)).body;
    const file = await csv(`/api/usage.csv?${query}`);
    expect(file.status).toBe(200);
    expect(file.type).toMatch(/^text\/csv/);
    expect(file.disposition).toMatch(/^attachment; filename="usage-by-/);
    const header = file.rows[0]!;
    expect(header[0]).toBe("group");
    expect(new Set(header)).toEqual(new Set(Object.keys(json.data[0])));
    const rows = records(file.rows);
    expect(rows).toEqual(json.data.map((row: Record<string, unknown>) => Object.fromEntries(header.map((field) => [field, asCell(row[field])]))));
    // Totals: the CSV's columns add up to the JSON's totals, cost to the nano-dollar.
    for (const field of header.filter((name) => !["group", "name", "prefix", "cost", "cost_nano"].includes(name))) {
      expect(rows.reduce((total, row) => total + Number(row[field]), 0), field).toBe(json.totals[field]);
    }
    expect(rows.reduce((total, row) => total + BigInt(row.cost_nano!), 0n).toString()).toBe(json.totals.cost_nano);
    expect(json.totals.requests).toBeGreaterThan(100);
    if (groupBy === "customer") expect(rows.map((row) => row.group).sort()).toEqual([`cus_${"c".repeat(32)}`, "none"]);
  });

  it("keeps a key name with a formula, commas, quotes and a line break in one cell, guarded against formula injection", async () => {
    const file = await csv(`/api/usage.csv?from=${FROM}&to=${TO}&group_by=key`);
    const nameColumn = file.rows[0]!.indexOf("name");
    const names = file.rows.slice(1).map((row) => row[nameColumn]!);
    expect(names).toContain(`'${NASTY}`);
    expect(names).toContain("'-1+2");
    expect(names.every((name) => !/^[=+\-@\t\r]/.test(name))).toBe(true);
    expect(file.text.endsWith("\r\n")).toBe(true);
  });

  it("answers a header alone for an empty window, and the JSON's errors for bad filters and scopes", async () => {
    const empty = await csv("/api/usage.csv?from=2020-01-01&to=2020-01-01");
    expect(empty.rows).toEqual([expect.arrayContaining(["group", "requests", "cost", "cost_nano"])]);
    const bad = await fixture.call("GET", "/api/usage.csv?group_by=color");
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe("group_by");
    expect((await fixture.call("GET", "/api/usage.csv", { token: fixture.acme["keys:read"] })).status).toBe(403);
    expect((await fixture.call("GET", "/api/usage.csv", { token: null })).status).toBe(401);
  });
});

describe("GET /api/requests.csv", () => {
  async function allJsonRequests(query: string): Promise<Record<string, unknown>[]> {
    const rows: Record<string, unknown>[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { data: Record<string, unknown>[]; next_cursor: string | null } } = await fixture.call("GET", `/api/requests?${query}&limit=100${cursor ? `&cursor=${cursor}` : ""}`);
      rows.push(...page.body.data);
      cursor = page.body.next_cursor;
    } while (cursor !== null);
    return rows;
  }

  it("holds every request the JSON lists for the same filters, in its order and fields; totals equal /api/usage's", async () => {
    const query = `from=${FROM}&to=${TO}`;
    const file = await csv(`/api/requests.csv?${query}`);
    expect(file.status).toBe(200);
    const json = await allJsonRequests(query);
    const header = file.rows[0]!;
    expect(header).toEqual(Object.keys(json[0]!));
    const rows = records(file.rows);
    expect(rows).toEqual(json.map((row) => Object.fromEntries(header.map((field) => [field, asCell(row[field])]))));
    const usage = (await fixture.call("GET", `/api/usage?${query}&group_by=day`)).body;
    expect(rows).toHaveLength(usage.totals.requests);
    expect(rows.reduce((total, row) => total + BigInt(row.cost_nano!), 0n).toString()).toBe(usage.totals.cost_nano);
    for (const field of ["input_tokens", "output_tokens", "cached_input_tokens", "cache_write_tokens", "reasoning_tokens", "images"]) {
      expect(rows.reduce((total, row) => total + Number(row[field]), 0), field).toBe(usage.totals[field]);
    }
  });

  it("applies the JSON's filters (key, model, status), and refuses what it refuses", async () => {
    const query = `key_id=${keys[1]!.id}&model=claude-large&status=ok`;
    const rows = records((await csv(`/api/requests.csv?${query}`)).rows);
    const json = await allJsonRequests(query);
    expect(rows.map((row) => row.id)).toEqual(json.map((row) => row.id));
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((row) => row.key_id === keys[1]!.id && row.model === "claude-large" && row.status === "ok")).toBe(true);
    const bad = await fixture.call("GET", "/api/requests.csv?status=weird");
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe("status");
    expect((await csv("/api/requests.csv", fixture.globex)).rows.every((row, index) => index === 0 || !keys.some((key) => row.includes(key.id)))).toBe(true);
  });
});

describe("CSV cells", () => {
  it("round-trip any strings through csv-parse (guard removed), and never start a cell with a formula character", () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string({ unit: "grapheme" }), fc.string({ unit: "binary-ascii" }), fc.constantFrom("=1+1", "+", "-", "@x", "\t=", "'", "'=", '"', ",", "\r\n", "")), { minLength: 1, maxLength: 6 }), (cells) => {
        const line = csvLine(cells);
        const [parsed] = parse(line) as string[][];
        expect(parsed!.map(unguardCell)).toEqual(cells);
        for (const cell of parsed!) expect(/^[=+\-@\t\r]/.test(cell)).toBe(false);
      }),
      { numRuns: 2_000 },
    );
  });

  it("leaves numbers, booleans and nulls bare", () => {
    expect(csvLine([1, 0n, true, null, undefined, "x"])).toBe('1,0,true,,,"x"\r\n');
    expect(guardCell("@SUM(A1)")).toBe("'@SUM(A1)");
    expect(guardCell("plain")).toBe("plain");
  });
});
