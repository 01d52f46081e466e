import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectError } from "./vendor-api-auth-checks.ts";
import { startVendorApiFixture, type VendorApiFixture } from "./vendor-api-fixture.ts";

let fixture: VendorApiFixture;
beforeAll(async () => {
  fixture = await startVendorApiFixture();
}, 60_000);
afterAll(async () => {
  await fixture?.close();
});

describe("GET /api/openapi.json", () => {
  it("serves an OpenAPI 3.1 document without auth, listing every /api operation", async () => {
    const response = await fixture.call("GET", "/api/openapi.json", { token: null });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    const document = response.body;
    expect(document.openapi).toBe("3.1.0");
    const operations = Object.entries(document.paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`));
    expect(operations.sort()).toEqual(
      ["POST /api/keys", "GET /api/keys", "GET /api/keys/{id}", "DELETE /api/keys/{id}", "GET /api/keys/{id}/usage", "GET /api/server-options", "GET /api/openapi.json"].sort(),
    );
    expect(document.components.securitySchemes.vendorToken).toMatchObject({ type: "http", scheme: "bearer" });
    expect(document.paths["/api/keys"].post.security).toEqual([{ vendorToken: ["keys:create"] }]);
    expect(document.paths["/api/openapi.json"].get.security).toEqual([]);
  });

  it("describes bodies, responses and the error envelope from the route schemas, every $ref resolving", async () => {
    const document = (await fixture.call("GET", "/api/openapi.json", { token: null })).body;
    const schemas = document.components.schemas;
    expect(schemas.CreateKeyRequest.required).toEqual(["server_option"]);
    expect(schemas.CreatedApiKey.required).toContain("key");
    expect(schemas.ApiKey.properties).not.toHaveProperty("key");
    expect(schemas.Error.properties.error.required).toEqual(["type", "message", "code", "param"]);
    expect(document.paths["/api/keys"].post.responses["409"]).toEqual({ $ref: "#/components/responses/Error409" });
    const refs = JSON.stringify(document).match(/"\$ref":"[^"]+"/g) ?? [];
    expect(refs.length).toBeGreaterThan(10);
    for (const ref of refs) {
      const pointer = ref.slice('"$ref":"#/'.length, -1).split("/");
      expect(pointer.reduce((node, part) => node?.[part], document), ref).toBeDefined();
    }
  });

  it("unknown /api routes are 404 in the same envelope", async () => {
    expectError(await fixture.call("GET", "/api/nope"), 404, "route_not_found");
    expectError(await fixture.call("PUT", "/api/keys"), 404, "route_not_found");
  });
});
