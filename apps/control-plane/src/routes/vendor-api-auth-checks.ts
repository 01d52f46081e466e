// The security checks every authenticated /api route must pass, run by each route's test file.
import { expect, it } from "vitest";
import type { VendorScope } from "../vendors/vendor-tokens.ts";
import type { ApiResponse, VendorApiFixture } from "./vendor-api-fixture.ts";

/** The contract's one envelope with `code`, its request id equal to the x-request-id header. */
export function expectError(response: ApiResponse, status: number, code: string): void {
  expect({ status: response.status, code: response.body?.error?.code }).toEqual({ status, code });
  expect(response.body).toEqual({
    type: "error",
    error: { type: expect.any(String), message: expect.any(String), code, param: response.body.error.param },
    request_id: response.headers.get("x-request-id"),
  });
  expect(response.body.error.param === null || typeof response.body.error.param === "string").toBe(true);
  expect(response.body.request_id).toMatch(/^req_/);
}

export interface GuardedRoute {
  method: string;
  /** A function when the path needs data made in beforeAll (a key id). */
  path: string | (() => string);
  /** null: any valid token may call it. */
  scope: VendorScope | null;
  body?: unknown;
}

export function vendorAuthChecks(fixture: () => VendorApiFixture, route: GuardedRoute): void {
  const call = (token: string | null, headers?: Record<string, string>) =>
    fixture().call(route.method, typeof route.path === "string" ? route.path : route.path(), { token, body: route.body, headers });

  it("401 invalid_vendor_token without a token", async () => {
    const response = await call(null);
    expectError(response, 401, "invalid_vendor_token");
    expect(response.body.error.type).toBe("authentication_error");
  });

  it("401 for an unknown, a malformed and a revoked token", async () => {
    expectError(await call(`vt_${"x".repeat(43)}`), 401, "invalid_vendor_token");
    expectError(await call("not-a-token"), 401, "invalid_vendor_token");
    expectError(await call(null, { authorization: "Basic dnQ6eA==" }), 401, "invalid_vendor_token");
    expectError(await call(fixture().acme.revoked), 401, "invalid_vendor_token");
  });

  it("401 for an sk- API key, in either header", async () => {
    const response = await call(fixture().apiKey);
    expectError(response, 401, "invalid_vendor_token");
    expect(response.body.error.message).toContain("vendor token");
    expectError(await call(null, { "x-api-key": fixture().apiKey }), 401, "invalid_vendor_token");
  });

  if (route.scope !== null) {
    const scope = route.scope;
    it(`403 missing_scope without ${scope}`, async () => {
      const response = await call(fixture().acme.none);
      expectError(response, 403, "missing_scope");
      expect(response.body.error.type).toBe("permission_error");
      const other = (["keys:create", "keys:read", "keys:revoke", "usage:read"] as const).find((candidate) => candidate !== scope)!;
      expectError(await call(fixture().acme[other]), 403, "missing_scope");
    });
  } else {
    it("any valid token may call it", async () => {
      expect((await call(fixture().acme.none)).status).toBe(200);
    });
  }
}
