import { GatewayError } from "@gateway/contracts";
import { describe, expect, it } from "vitest";
import { hashRequest, readIdempotencyKey, responseCipher } from "./idempotency.ts";

describe("responseCipher", () => {
  const cipher = responseCipher("a-secret-of-at-least-16-chars");
  const body = { id: "key_1", key: "sk-plaintext" };

  it("round-trips a response, with a fresh IV each time", () => {
    const first = cipher.encrypt(body, "vnd_1\norder-1");
    expect(cipher.decrypt(first, "vnd_1\norder-1")).toEqual(body);
    expect(cipher.encrypt(body, "vnd_1\norder-1")).not.toBe(first);
    expect(first).not.toContain("sk-plaintext");
  });

  it("refuses another row's ciphertext, a tampered one and another secret", () => {
    const text = cipher.encrypt(body, "vnd_1\norder-1");
    expect(() => cipher.decrypt(text, "vnd_2\norder-1")).toThrow();
    const bytes = Buffer.from(text.slice("v1.".length), "base64url");
    bytes[bytes.length - 1]! ^= 1;
    const tampered = `v1.${bytes.toString("base64url")}`;
    expect(() => cipher.decrypt(tampered, "vnd_1\norder-1")).toThrow();
    expect(() => responseCipher("another-secret-16-chars").decrypt(text, "vnd_1\norder-1")).toThrow();
  });
});

describe("hashRequest", () => {
  it("ignores key order and whitespace, not values or the route", () => {
    const a = hashRequest("POST /api/keys", { a: 1, b: { c: [1, { d: 2, e: null }] } });
    expect(hashRequest("POST /api/keys", { b: { c: [1, { e: null, d: 2 }] }, a: 1 })).toBe(a);
    expect(hashRequest("POST /api/keys", { a: 1, b: { c: [{ d: 2, e: null }, 1] } })).not.toBe(a);
    expect(hashRequest("POST /api/other", { a: 1, b: { c: [1, { d: 2, e: null }] } })).not.toBe(a);
  });
});

describe("readIdempotencyKey", () => {
  it("accepts visible ASCII up to 255 characters", () => {
    expect(readIdempotencyKey(undefined)).toBeUndefined();
    expect(readIdempotencyKey("order-42:retry")).toBe("order-42:retry");
    for (const bad of ["", "with space", "x".repeat(256), "café"]) {
      expect(() => readIdempotencyKey(bad)).toThrow(GatewayError);
    }
  });
});
