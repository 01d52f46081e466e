import { hashSecret } from "@gateway/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { vendorTokenSchema } from "../vendors/report-schemas.ts";
import { createVendorToken, VENDOR_SCOPES } from "../vendors/vendor-tokens.ts";
import { vendorAuthChecks } from "./vendor-api-auth-checks.ts";
import { startVendorApiFixture, type VendorApiFixture } from "./vendor-api-fixture.ts";

let fixture: VendorApiFixture;
beforeAll(async () => {
  fixture = await startVendorApiFixture();
}, 60_000);
afterAll(async () => {
  await fixture?.close();
});

const rowOf = (plaintext: string) =>
  fixture.control.services.db.prisma.vendorToken.findUniqueOrThrow({ where: { tokenHash: hashSecret(plaintext) }, include: { vendor: true } });

/** Every string anywhere in a JSON body. */
function stringsIn(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (typeof value !== "object" || value === null) return [];
  return Object.values(value).flatMap(stringsIn);
}

/** GET /api/token with `plaintext`: 200, the schema's shape, and nowhere the secret or its hash. */
async function readToken(plaintext: string) {
  const response = await fixture.call("GET", "/api/token", { token: plaintext });
  expect(response.status).toBe(200);
  const token = vendorTokenSchema.strict().parse(response.body);
  for (const text of stringsIn(response.body)) {
    expect(text).not.toContain(plaintext);
    expect(text).not.toContain(hashSecret(plaintext));
  }
  return token;
}

describe("GET /api/token", () => {
  vendorAuthChecks(() => fixture, { method: "GET", path: "/api/token", scope: null });

  it("describes the calling token: id, name, prefix, vendor, scopes and dates, never the secret", async () => {
    const plaintext = fixture.acme["usage:read"];
    const row = await rowOf(plaintext);
    expect(await readToken(plaintext)).toEqual({
      object: "vendor_token",
      id: row.id,
      name: "test",
      prefix: plaintext.slice(0, 7),
      vendor: { id: row.vendor.id, name: "acme" },
      scopes: ["usage:read"],
      created_at: row.createdAt.toISOString(),
      last_used_at: expect.toBeOneOf([null, expect.any(String)]),
    });
    expect(row.id).toMatch(/^vtk_/);
    expect(row.vendor.id).toMatch(/^vnd_/);
  });

  it("lists exactly the token's scopes: one, every one, none", async () => {
    for (const scope of VENDOR_SCOPES) expect((await readToken(fixture.acme[scope])).scopes).toEqual([scope]);
    expect((await readToken(fixture.acme.all)).scopes).toEqual([...VENDOR_SCOPES]);
    expect((await readToken(fixture.acme.none)).scopes).toEqual([]);
  });

  it("names the token's own vendor", async () => {
    expect((await readToken(fixture.globex)).vendor.name).toBe("globex");
  });

  it("shows when the token was last used", async () => {
    const { plaintext, row } = await createVendorToken(fixture.control.services.db.prisma, { vendor: "acme", name: "fresh", scopes: ["usage:read", "keys:read"] });
    const first = await readToken(plaintext);
    expect(first).toMatchObject({ id: row.id, name: "fresh", scopes: ["keys:read", "usage:read"] });
    // vendorAuth records the use without waiting for it: a later call sees it.
    await expect.poll(async () => (await readToken(plaintext)).last_used_at, { timeout: 5_000, interval: 50 }).toEqual(expect.any(String));
    const recorded = await rowOf(plaintext);
    expect((await readToken(plaintext)).last_used_at).toBe(recorded.lastUsedAt?.toISOString());
  });
});
