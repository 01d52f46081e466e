import { hashSecret } from "@gateway/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiKeySchema } from "../vendors/api-schemas.ts";
import { expectError, vendorAuthChecks } from "./vendor-api-auth-checks.ts";
import { startVendorApiFixture, type VendorApiFixture } from "./vendor-api-fixture.ts";

let fixture: VendorApiFixture;
let acmeKey: { id: string; key: string };
let globexKey: { id: string; key: string };

beforeAll(async () => {
  fixture = await startVendorApiFixture();
  const mint = async (token: string, name: string) => {
    const response = await fixture.call("POST", "/api/keys", { token, body: { server_option: "standard", name, quota: "2", metadata: { tier: "gold" } } });
    expect(response.status).toBe(201);
    return response.body as { id: string; key: string };
  };
  acmeKey = await mint(fixture.acme.all, "acme key");
  globexKey = await mint(fixture.globex, "globex key");
}, 60_000);
afterAll(async () => {
  await fixture?.close();
});

describe("GET /api/keys/{id}", () => {
  vendorAuthChecks(() => fixture, { method: "GET", path: () => `/api/keys/${acmeKey.id}`, scope: "keys:read" });

  it("returns the key object without the plaintext", async () => {
    const response = await fixture.call("GET", `/api/keys/${acmeKey.id}`, { token: fixture.acme["keys:read"] });
    expect(response.status).toBe(200);
    expect(apiKeySchema.strict().parse(response.body)).toMatchObject({ id: acmeKey.id, object: "api_key", name: "acme key", quota: "2.000000", status: "active", metadata: { tier: "gold" } });
    expect(JSON.stringify(response.body)).not.toContain(acmeKey.key);
  });

  it("404 for an unknown id and for another vendor's key, alike", async () => {
    const unknown = await fixture.call("GET", "/api/keys/key_doesnotexist");
    const foreign = await fixture.call("GET", `/api/keys/${globexKey.id}`);
    expectError(unknown, 404, "not_found");
    expectError(foreign, 404, "not_found");
    expect(foreign.body.error.type).toBe("not_found_error");
    expect(foreign.body.error.message.replace(globexKey.id, "X")).toBe(unknown.body.error.message.replace("key_doesnotexist", "X"));
  });
});

describe("DELETE /api/keys/{id}", () => {
  vendorAuthChecks(() => fixture, { method: "DELETE", path: () => `/api/keys/${acmeKey.id}`, scope: "keys:revoke" });

  it("404 for another vendor's key, which stays active", async () => {
    expectError(await fixture.call("DELETE", `/api/keys/${globexKey.id}`), 404, "not_found");
    expectError(await fixture.call("DELETE", "/api/keys/key_doesnotexist"), 404, "not_found");
    expect(await fixture.control.services.records.readKey(hashSecret(globexKey.key))).toMatchObject({ status: "active" });
    expect((await fixture.call("GET", `/api/keys/${globexKey.id}`, { token: fixture.globex })).body.status).toBe("active");
  });

  it("503 and nothing revoked when the key store cannot be written", async () => {
    const { redis } = fixture.control.services;
    redis.disconnect();
    try {
      const response = await fixture.call("DELETE", `/api/keys/${acmeKey.id}`);
      expectError(response, 503, "dependency_unavailable");
      expect(response.headers.get("x-should-retry")).toBe("false");
    } finally {
      await redis.connect();
    }
    expect((await fixture.call("GET", `/api/keys/${acmeKey.id}`)).body.status).toBe("active");
    expect(await fixture.control.services.records.readKey(hashSecret(acmeKey.key))).toMatchObject({ status: "active" });
  });

  it("revokes: 200 with status revoked, the Redis record revoked, and again on a repeat", async () => {
    const response = await fixture.call("DELETE", `/api/keys/${acmeKey.id}`, { token: fixture.acme["keys:revoke"] });
    expect(response.status).toBe(200);
    expect(apiKeySchema.strict().parse(response.body)).toMatchObject({ id: acmeKey.id, object: "api_key", status: "revoked", name: "acme key" });
    expect(await fixture.control.services.records.readKey(hashSecret(acmeKey.key))).toMatchObject({ id: acmeKey.id, status: "revoked" });
    expect((await fixture.call("GET", `/api/keys/${acmeKey.id}`)).body.status).toBe("revoked");
    const repeat = await fixture.call("DELETE", `/api/keys/${acmeKey.id}`);
    expect(repeat.status).toBe(200);
    expect(repeat.body).toEqual(response.body);
  });
});
