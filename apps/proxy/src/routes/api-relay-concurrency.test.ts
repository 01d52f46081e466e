import { describe, expect, it } from "vitest";
import { VendorConcurrency } from "./api-relay-concurrency.ts";

describe("the per-vendor cap of the /api relay", () => {
  const cap = new VendorConcurrency(2);
  const bucket = (authorization?: string) => cap.bucketOf(authorization === undefined ? {} : { authorization });

  it("keys a vendor by its token's hash; callers without a vendor token share one bucket", () => {
    expect(bucket("Bearer vt_abc")).toBe(bucket("bearer vt_abc "));
    expect(bucket("Bearer vt_abc")).not.toBe(bucket("Bearer vt_abd"));
    expect(bucket("Bearer vt_abc")).not.toContain("vt_abc");
    const shared = bucket();
    for (const other of ["Bearer ", "Bearer sk-client-key", "Basic dnRfYWJj", "Bearer vt_with space", `Bearer vt_${"a".repeat(200)}`]) expect(bucket(other)).toBe(shared);
  });

  it("admits up to the cap per bucket and takes a slot back on release", () => {
    const vendor = bucket("Bearer vt_one");
    expect([cap.acquire(vendor), cap.acquire(vendor), cap.acquire(vendor)]).toEqual([true, true, false]);
    expect(cap.acquire(bucket("Bearer vt_two"))).toBe(true);
    cap.release(vendor);
    expect([cap.acquire(vendor), cap.acquire(vendor)]).toEqual([true, false]);
  });
});
