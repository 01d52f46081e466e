import { hashSecret } from "@gateway/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiKeyListSchema, createdApiKeySchema } from "../vendors/api-schemas.ts";
import { expectError, vendorAuthChecks } from "./vendor-api-auth-checks.ts";
import { startVendorApiFixture, type VendorApiFixture } from "./vendor-api-fixture.ts";

let fixture: VendorApiFixture;
beforeAll(async () => {
  fixture = await startVendorApiFixture();
}, 60_000);
afterAll(async () => {
  await fixture?.close();
});

const prisma = () => fixture.control.services.db.prisma;
const vendorId = async (name: string) => (await prisma().vendor.findUniqueOrThrow({ where: { name } })).id;
const mint = (body: unknown, options: { token?: string; idempotencyKey?: string } = {}) =>
  fixture.call("POST", "/api/keys", { body, token: options.token, headers: options.idempotencyKey ? { "idempotency-key": options.idempotencyKey } : {} });

describe("POST /api/keys", () => {
  vendorAuthChecks(() => fixture, { method: "POST", path: "/api/keys", scope: "keys:create", body: { server_option: "standard" } });

  it("mints a key: 201 with the plaintext once, a hashed row, and a Redis record every proxy reads", async () => {
    const body = { server_option: "standard", name: "alice", quota: "10.00", expires_at: "2099-01-01T00:00:00Z", rate_limits: { rpm: 60, tpm: 1000 }, metadata: { customer: 42 } };
    const response = await mint(body, { token: fixture.acme["keys:create"] });
    expect(response.status).toBe(201);
    expect(createdApiKeySchema.strict().parse(response.body)).toEqual({
      id: expect.stringMatching(/^key_/),
      object: "api_key",
      key: expect.stringMatching(/^sk-[0-9A-Za-z]{40,}$/),
      prefix: response.body.key.slice(0, 7),
      name: "alice",
      server_option: "standard",
      quota: "10.000000",
      expires_at: "2099-01-01T00:00:00.000Z",
      created_at: expect.any(String),
      status: "active",
      rate_limits: { rpm: 60, tpm: 1000 },
      metadata: { customer: 42 },
      budget: null,
      last_used_at: null,
      customer_id: null,
    });
    expect(Object.keys(response.body).slice(0, 3)).toEqual(["id", "object", "key"]);

    const row = await prisma().apiKey.findUniqueOrThrow({ where: { id: response.body.id } });
    expect(row.keyHash).toBe(hashSecret(response.body.key));
    expect(JSON.stringify(row, (_key, value) => (typeof value === "bigint" ? value.toString() : value))).not.toContain(response.body.key);
    expect(row.quotaNano).toBe(10_000_000_000n);
    expect(await fixture.control.services.records.readKey(hashSecret(response.body.key))).toMatchObject({
      id: response.body.id, vendorId: await vendorId("acme"), serverOption: "standard", status: "active", quotaNano: "10000000000", rpm: 60, tpm: 1000,
    });
  });

  it("fills defaults: unlimited, never expires, the server option's rate limits", async () => {
    const response = await mint({ server_option: "standard" });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ name: "", quota: null, expires_at: null, rate_limits: { rpm: 600, tpm: 200000 }, metadata: {} });
  });

  it("400 naming the field: missing server_option, wrong types, unknown fields, a past expiry", async () => {
    const missing = await mint({ name: "no option" });
    expectError(missing, 400, "invalid_body");
    expect(missing.body.error).toMatchObject({ type: "invalid_request_error", param: "server_option", message: "server_option: required" });
    const cases: [unknown, string][] = [
      [{ server_option: 7 }, "server_option"],
      [{ server_option: "standard", quota: 10 }, "quota"],
      [{ server_option: "standard", quota: "1.1234567" }, "quota"],
      [{ server_option: "standard", rate_limits: { rpm: "many" } }, "rate_limits.rpm"],
      [{ server_option: "standard", rate_limits: { rpm: 0 } }, "rate_limits.rpm"],
      [{ server_option: "standard", expires_at: "tomorrow" }, "expires_at"],
      [{ server_option: "standard", expires_at: "2001-01-01T00:00:00Z" }, "expires_at"],
      [{ server_option: "standard", metadata: [] }, "metadata"],
      [{ server_option: "standard", quota_usd: "5" }, "quota_usd"],
    ];
    for (const [body, param] of cases) {
      const response = await mint(body);
      expectError(response, 400, "invalid_body");
      expect(response.body.error.param, JSON.stringify(body)).toBe(param);
    }
    expect((await mint([{ server_option: "standard" }])).status).toBe(400);
  });

  it("400 for malformed JSON, 415 for another content type, 413 over the body limit", async () => {
    expectError(await fixture.call("POST", "/api/keys", { body: '{"server_option": ' }), 400, "invalid_json");
    expectError(await fixture.call("POST", "/api/keys", { body: "server_option=standard", headers: { "content-type": "application/x-www-form-urlencoded" } }), 415, "unsupported_media_type");
    const huge = { server_option: "standard", metadata: { blob: "x".repeat(fixture.control.services.config.BODY_LIMIT_BYTES) } };
    expectError(await mint(huge), 413, "request_too_large");
  });

  it("403 server_option_not_allowed for another vendor's option and for an unknown one, alike", async () => {
    const before = await prisma().apiKey.count();
    const foreign = await mint({ server_option: "globex-only" });
    const unknown = await mint({ server_option: "no-such-option" });
    expectError(foreign, 403, "server_option_not_allowed");
    expectError(unknown, 403, "server_option_not_allowed");
    expect(foreign.body.error.param).toBe("server_option");
    expect(foreign.body.error.message.replace("globex-only", "X")).toBe(unknown.body.error.message.replace("no-such-option", "X"));
    expect(await prisma().apiKey.count()).toBe(before);
    expect((await mint({ server_option: "globex-only" }, { token: fixture.globex })).status).toBe(201);
  });
});

describe("POST /api/keys with Idempotency-Key", () => {
  it("replays the identical 201, plaintext included, and mints once", async () => {
    const body = { server_option: "economy", name: "idem-once", quota: "1.5", metadata: { a: 1, b: [1, 2] } };
    const first = await mint(body, { idempotencyKey: "order-1" });
    const again = await mint(body, { idempotencyKey: "order-1" });
    const reordered = await mint({ metadata: { b: [1, 2], a: 1 }, quota: "1.5", name: "idem-once", server_option: "economy" }, { idempotencyKey: "order-1" });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(reordered.body).toEqual(first.body);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await prisma().apiKey.count({ where: { name: "idem-once" } })).toBe(1);
  });

  it("stores the response encrypted, with a 24 h expiry", async () => {
    const response = await mint({ server_option: "economy", name: "idem-stored" }, { idempotencyKey: "order-stored" });
    const record = await prisma().idempotencyRecord.findUniqueOrThrow({ where: { vendorId_key: { vendorId: await vendorId("acme"), key: "order-stored" } } });
    expect(record.responseCiphertext).toMatch(/^v1\./);
    expect(record.responseCiphertext).not.toContain(response.body.key);
    expect(Buffer.from(record.responseCiphertext.slice(3), "base64url").toString("latin1")).not.toContain(response.body.key);
    const ttl = record.expiresAt.getTime() - record.createdAt.getTime();
    expect(Math.abs(ttl - 24 * 3600 * 1000)).toBeLessThan(5_000);
  });

  it("409 idempotency_conflict for the same key with another body", async () => {
    expect((await mint({ server_option: "economy", name: "idem-a" }, { idempotencyKey: "order-2" })).status).toBe(201);
    const conflict = await mint({ server_option: "economy", name: "idem-b" }, { idempotencyKey: "order-2" });
    expectError(conflict, 409, "idempotency_conflict");
    expect(conflict.body.error.type).toBe("invalid_request_error");
    expect(await prisma().apiKey.count({ where: { name: "idem-b" } })).toBe(0);
  });

  it("mints one key for concurrent requests with the same key, all answered identically", async () => {
    const body = { server_option: "standard", name: "idem-concurrent" };
    // More requests than the database pool has connections: waiting claims must not starve the first.
    const count = fixture.control.services.config.DB_POOL_SIZE + 4;
    const responses = await Promise.all(Array.from({ length: count }, () => mint(body, { idempotencyKey: "order-concurrent" })));
    expect(responses.map((response) => response.status)).toEqual(Array(count).fill(201));
    for (const response of responses) expect(response.body).toEqual(responses[0]!.body);
    expect(responses.filter((response) => response.headers.get("idempotent-replayed") === null)).toHaveLength(1);
    expect(await prisma().apiKey.count({ where: { name: "idem-concurrent" } })).toBe(1);
    expect(await fixture.control.services.records.readKey(hashSecret(responses[0]!.body.key))).toMatchObject({ status: "active" });
  });

  it("scopes keys per vendor, and an expired record lets the key mint anew", async () => {
    const body = { server_option: "standard", name: "idem-scoped" };
    const acme = await mint(body, { idempotencyKey: "order-3" });
    const globex = await mint(body, { idempotencyKey: "order-3", token: fixture.globex });
    expect(globex.status).toBe(201);
    expect(globex.body.id).not.toBe(acme.body.id);
    await prisma().idempotencyRecord.update({
      where: { vendorId_key: { vendorId: await vendorId("acme"), key: "order-3" } },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    const later = await mint(body, { idempotencyKey: "order-3" });
    expect(later.status).toBe(201);
    expect(later.body.id).not.toBe(acme.body.id);
  });

  it("400 invalid_header for a malformed Idempotency-Key", async () => {
    const response = await mint({ server_option: "standard" }, { idempotencyKey: "k".repeat(256) });
    expectError(response, 400, "invalid_header");
    expect(response.body.error.param).toBe("Idempotency-Key");
  });
});

describe("GET /api/keys", () => {
  vendorAuthChecks(() => fixture, { method: "GET", path: "/api/keys", scope: "keys:read" });

  beforeAll(async () => {
    // Concurrent mints share milliseconds, so the id tie-break of the cursor is exercised.
    await Promise.all(Array.from({ length: 15 }, (_, index) => mint({ server_option: "economy", name: `page-${index}` })));
  });

  it("walks every page of the vendor's keys, newest first, without repeats or other vendors' keys", async () => {
    const expected = await prisma().apiKey.findMany({ where: { vendorId: await vendorId("acme") }, orderBy: [{ createdAt: "desc" }, { id: "desc" }] });
    expect(expected.length).toBeGreaterThan(20);
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 50; pages += 1) {
      const response = await fixture.call("GET", `/api/keys?limit=3${cursor ? `&cursor=${cursor}` : ""}`, { token: fixture.acme["keys:read"] });
      expect(response.status).toBe(200);
      const page = apiKeyListSchema.parse(response.body);
      expect(page.data.length).toBeLessThanOrEqual(3);
      for (const item of response.body.data) expect(item).not.toHaveProperty("key");
      seen.push(...page.data.map((item) => item.id));
      expect(page.has_more).toBe(page.next_cursor !== null);
      cursor = page.next_cursor;
      if (!cursor) break;
    }
    expect(seen).toEqual(expected.map((row) => row.id));
  });

  it("defaults to 20 and shows only the caller's keys", async () => {
    const response = await fixture.call("GET", "/api/keys", { token: fixture.globex });
    const globexKeys = await prisma().apiKey.findMany({ where: { vendorId: await vendorId("globex") }, select: { id: true } });
    expect(response.body.data.map((item: { id: string }) => item.id).sort()).toEqual(globexKeys.map((row) => row.id).sort());
    expect((await fixture.call("GET", "/api/keys")).body.data).toHaveLength(20);
  });

  it("400 for a bad limit or cursor", async () => {
    for (const query of ["limit=0", "limit=101", "limit=abc", "limit=2&limit=3"]) {
      const response = await fixture.call("GET", `/api/keys?${query}`);
      expectError(response, 400, "invalid_body");
      expect(response.body.error.param, query).toBe("limit");
    }
    const yearZero = Buffer.from(JSON.stringify({ createdAt: "0000-01-01T00:00:00.000Z", id: "key_x" })).toString("base64url");
    for (const cursor of ["garbage", Buffer.from('{"name":"standard"}').toString("base64url"), yearZero]) {
      const response = await fixture.call("GET", `/api/keys?cursor=${cursor}`);
      expectError(response, 400, "invalid_body");
      expect(response.body.error.param).toBe("cursor");
    }
  });
});
