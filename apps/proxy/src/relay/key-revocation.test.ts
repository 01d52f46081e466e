import { describe, expect, it } from "vitest";
import type { KeyRecord } from "@gateway/redis-store";
import { refusalOf } from "./key-revocation.ts";

const NOW = 1_800_000_000_000;
const active: KeyRecord = {
  id: "key_1", vendorId: "vnd_1", name: "k", prefix: "sk-abc", serverOption: "standard", status: "active", expiresAt: null,
  quotaNano: null, rpm: null, tpm: null, budget: null, secretExpiresAt: null, revision: 1,
};

describe("refusalOf", () => {
  it("refuses a revoked, deleted or disabled key and a secret rotated away, each with its code; holds a good one", () => {
    expect(refusalOf(active, NOW)).toBeNull();
    // A rotation with grace: the old secret still holds until its end.
    expect(refusalOf({ ...active, secretExpiresAt: NOW + 1 }, NOW)).toBeNull();
    expect(refusalOf({ ...active, status: "revoked" }, NOW)).toMatchObject({ code: "key_revoked", type: "authentication_error", status: 401 });
    // Redis emptied (not yet rebuilt): its streams ride it out.
    expect(refusalOf(null, NOW)).toBeNull();
    expect(refusalOf({ ...active, status: "disabled" }, NOW)).toMatchObject({ code: "key_disabled", type: "authentication_error" });
    expect(refusalOf({ ...active, secretExpiresAt: NOW }, NOW)).toMatchObject({ code: "key_revoked", message: expect.stringMatching(/rotated/) });
  });

  it("ends the open requests of a key whose customer was disabled; an active customer's hold", () => {
    const customer = { id: "cus_1", status: "active" as const, prepaid: false, budget: null, plan: null };
    expect(refusalOf({ ...active, customer }, NOW)).toBeNull();
    expect(refusalOf({ ...active, customer: { ...customer, status: "disabled" } }, NOW)).toMatchObject({ code: "key_disabled", status: 401, message: expect.stringMatching(/customer/) });
  });
});
