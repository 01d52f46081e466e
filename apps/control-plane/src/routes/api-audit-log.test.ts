import { newId } from "@gateway/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeCursor } from "../vendors/pagination.ts";
import { auditEntryListSchema, type AuditEntryObject } from "../vendors/report-schemas.ts";
import { expectError, vendorAuthChecks } from "./vendor-api-auth-checks.ts";
import { startVendorApiFixture, type VendorApiFixture } from "./vendor-api-fixture.ts";

const BASE = Date.parse("2031-08-01T00:00:00Z");
const ACTIONS = ["key.created", "key.updated", "key.rotated", "key.revoked"];

let fixture: VendorApiFixture;
let acmeVendorId: string;
let globexVendorId: string;

beforeAll(async () => {
  fixture = await startVendorApiFixture();
  const { prisma } = fixture.control.services.db;
  acmeVendorId = (await prisma.vendor.findUniqueOrThrow({ where: { name: "acme" } })).id;
  globexVendorId = (await prisma.vendor.findUniqueOrThrow({ where: { name: "globex" } })).id;
  const entry = (vendorId: string, index: number) => ({
    id: newId("aud"),
    vendorId,
    tokenId: index % 5 === 0 ? null : `vtk_${index % 3}`,
    requestId: index % 5 === 0 ? null : newId("req"),
    action: ACTIONS[index % ACTIONS.length]!,
    keyId: newId("key"),
    changes: { name: `key ${index}`, quota: index % 2 === 0 ? "10.000000" : null },
    // Entries 0-2, 3-5, ... share an instant: ties are ordered by id, across pages too.
    createdAt: new Date(BASE + Math.floor(index / 3) * 60_000),
  });
  await prisma.auditEntry.createMany({ data: [...Array.from({ length: 25 }, (_, index) => entry(acmeVendorId, index)), ...Array.from({ length: 6 }, (_, index) => entry(globexVendorId, index))] });
}, 60_000);
afterAll(async () => {
  await fixture?.close();
});

/** Every entry of a vendor in the log's order, from the table itself (key changes made by the fixture included). */
async function expectedEntries(vendorId: string): Promise<AuditEntryObject[]> {
  const rows = await fixture.control.services.db.prisma.auditEntry.findMany({ where: { vendorId } });
  return rows
    .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1))
    .map((row) => ({
      id: row.id,
      object: "audit_entry",
      action: row.action,
      key_id: row.keyId,
      token_id: row.tokenId,
      request_id: row.requestId,
      changes: row.changes as Record<string, unknown>,
      created_at: row.createdAt.toISOString(),
    }));
}

async function allPages(limit: number, token: string): Promise<AuditEntryObject[]> {
  const entries: AuditEntryObject[] = [];
  let cursor: string | null = null;
  do {
    const response = await fixture.call("GET", `/api/audit-log?limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`, { token });
    expect(response.status).toBe(200);
    const page = auditEntryListSchema.parse(response.body);
    entries.push(...page.data);
    cursor = page.next_cursor;
  } while (cursor);
  return entries;
}

describe("GET /api/audit-log", () => {
  vendorAuthChecks(() => fixture, { method: "GET", path: "/api/audit-log", scope: null });

  it("lists the vendor's entries newest first, 20 a page by default", async () => {
    const response = await fixture.call("GET", "/api/audit-log", { token: fixture.acme.none });
    expect(response.status).toBe(200);
    const expected = await expectedEntries(acmeVendorId);
    expect(expected.length).toBeGreaterThan(20);
    expect(response.body).toEqual({ object: "list", data: expected.slice(0, 20), has_more: true, next_cursor: expect.any(String) });
  });

  it("pages through everything without a gap or a duplicate, ties included", async () => {
    const expected = await expectedEntries(acmeVendorId);
    for (const limit of [1, 4, 100]) expect(await allPages(limit, fixture.acme.none)).toEqual(expected);
  });

  it("shows each vendor its own entries only", async () => {
    const globex = await allPages(5, fixture.globex);
    expect(globex).toEqual(await expectedEntries(globexVendorId));
    expect(globex.length).toBeGreaterThanOrEqual(6);
    const acmeIds = new Set((await allPages(100, fixture.acme.all)).map((entry) => entry.id));
    expect(globex.some((entry) => acmeIds.has(entry.id))).toBe(false);
  });

  it("400 naming limit or cursor", async () => {
    for (const [query, param] of [
      ["limit=0", "limit"],
      ["limit=101", "limit"],
      ["cursor=junk", "cursor"],
      [`cursor=${encodeCursor({ createdAt: "0000-01-01T00:00:00Z", id: "aud_x" })}`, "cursor"],
      [`cursor=${encodeCursor({ createdAt: "2031-08-01T00:00:00Z", id: "aud_\u0000" })}`, "cursor"],
    ]) {
      const response = await fixture.call("GET", `/api/audit-log?${query}`);
      expectError(response, 400, "invalid_body");
      expect(response.body.error.param, query).toBe(param);
    }
  });
});
