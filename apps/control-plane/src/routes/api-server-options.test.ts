import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverOptionListSchema } from "../vendors/api-schemas.ts";
import { expectError, vendorAuthChecks } from "./vendor-api-auth-checks.ts";
import { startVendorApiFixture, type VendorApiFixture } from "./vendor-api-fixture.ts";

let fixture: VendorApiFixture;
beforeAll(async () => {
  fixture = await startVendorApiFixture();
}, 60_000);
afterAll(async () => {
  await fixture?.close();
});

// cache writes default to 1.25x and 2x the input price (contract section 12)
const gptSmall = { input: "0.150000", output: "0.600000", cached_input: "0.150000", cache_write: "0.187500", cache_write_1h: "0.300000", image: "0.040000", request: "0.000000", web_search: "0.000000", tiers: [] };

describe("GET /api/server-options", () => {
  vendorAuthChecks(() => fixture, { method: "GET", path: "/api/server-options", scope: null });

  it("lists only the vendor's options, by name, with effective prices and rate limits", async () => {
    const response = await fixture.call("GET", "/api/server-options", { token: fixture.acme["keys:read"] });
    expect(response.status).toBe(200);
    const list = serverOptionListSchema.parse(response.body);
    expect(list).toMatchObject({ object: "list", has_more: false, next_cursor: null });
    expect(list.data.map((option) => option.name)).toEqual(["economy", "premium", "standard"]);
    const [economy, premium, standard] = list.data;
    expect(standard).toEqual({
      id: expect.stringMatching(/^so_/),
      name: "standard",
      description: "Everyday models",
      models: ["claude-large", "gpt-small"],
      pricing: {
        "claude-large": { input: "3.000000", output: "15.000000", cached_input: "0.300000", cache_write: "3.750000", cache_write_1h: "6.000000", image: "0.000000", request: "0.000000", web_search: "0.000000", tiers: [] },
        "gpt-small": gptSmall,
      },
      rate_limits: { rpm: 600, tpm: 200000 },
    });
    // Overridden input and output; the cached input and cache-write prices are the model's x1.5.
    expect(premium!.pricing).toEqual({ "claude-large": { input: "4.000000", output: "20.000000", cached_input: "0.450000", cache_write: "5.625000", cache_write_1h: "9.000000", image: "0.000000", request: "0.000000", web_search: "0.000000", tiers: [] } });
    expect(premium!.rate_limits).toEqual({ rpm: null, tpm: null });
    expect(economy).toMatchObject({ description: "", models: ["gpt-small"], pricing: { "gpt-small": gptSmall } });
  });

  it("shows another vendor its own options, never acme's premium or economy", async () => {
    const response = await fixture.call("GET", "/api/server-options", { token: fixture.globex });
    expect(response.body.data.map((option: { name: string }) => option.name)).toEqual(["globex-only", "standard"]);
  });

  it("pages with ?limit=&cursor=", async () => {
    const first = await fixture.call("GET", "/api/server-options?limit=2");
    expect(first.body).toMatchObject({ has_more: true, next_cursor: expect.any(String) });
    expect(first.body.data.map((option: { name: string }) => option.name)).toEqual(["economy", "premium"]);
    const second = await fixture.call("GET", `/api/server-options?limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(second.body.data.map((option: { name: string }) => option.name)).toEqual(["standard"]);
    expectError(await fixture.call("GET", "/api/server-options?limit=500"), 400, "invalid_body");
    expectError(await fixture.call("GET", "/api/server-options?cursor=%%%"), 400, "invalid_body");
  });
});
