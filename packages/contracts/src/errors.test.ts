import { describe, expect, it } from "vitest";
import { asGatewayError, GatewayError, toEnvelope } from "./errors.ts";
import { newApiKey, newVendorToken, displayPrefix, hashSecret, hashesEqual } from "./secrets.ts";
import { newId } from "./ids.ts";

describe("the error envelope", () => {
  it("renders the contract's body", () => {
    const error = new GatewayError("invalid_body", "messages: required", { param: "messages" });
    expect(toEnvelope(error, "req_1")).toEqual({
      type: "error",
      error: { type: "invalid_request_error", message: "messages: required", code: "invalid_body", param: "messages" },
      request_id: "req_1",
    });
    expect(error.status).toBe(400);
  });

  it.each([
    ["invalid_api_key", 401, "authentication_error"],
    ["model_not_allowed", 403, "permission_error"],
    ["model_not_found", 404, "not_found_error"],
    ["idempotency_conflict", 409, "invalid_request_error"],
    ["request_too_large", 413, "request_too_large"],
    ["unsupported_media_type", 415, "invalid_request_error"],
    ["rate_limit_exceeded", 429, "rate_limit_error"],
    ["insufficient_quota", 429, "insufficient_quota"],
    ["upstream_error", 502, "api_error"],
    ["dependency_unavailable", 503, "overloaded_error"],
    ["control_plane_unavailable", 503, "overloaded_error"],
    ["upstream_timeout", 504, "api_error"],
  ] as const)("%s -> %i %s", (code, status, type) => {
    const error = new GatewayError(code, "x");
    expect([error.status, error.type]).toEqual([status, type]);
  });

  it("hides unknown faults behind a generic 500", () => {
    const error = asGatewayError(new Error("secret detail"));
    expect(error.status).toBe(500);
    expect(error.message).not.toMatch(/secret/);
  });
});

describe("secrets and ids", () => {
  it("mints sk- keys and vt_ tokens with at least 32 random bytes of base62", () => {
    const key = newApiKey();
    expect(key).toMatch(/^sk-[0-9A-Za-z]{43,}$/);
    expect(newVendorToken()).toMatch(/^vt_[0-9A-Za-z]{43,}$/);
    expect(newApiKey()).not.toBe(key);
    expect(displayPrefix(key)).toBe(key.slice(0, 7));
  });

  it("compares hashes in constant time and only equal ones match", () => {
    expect(hashesEqual(hashSecret("a"), hashSecret("a"))).toBe(true);
    expect(hashesEqual(hashSecret("a"), hashSecret("b"))).toBe(false);
    expect(hashesEqual(hashSecret("a"), "00")).toBe(false);
  });

  it("prefixes ids", () => {
    expect(newId("req")).toMatch(/^req_[0-9a-f]{32}$/);
  });
});
