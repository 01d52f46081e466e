import { newId } from "@gateway/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyUsageSchema } from "../vendors/api-schemas.ts";
import { expectError, vendorAuthChecks } from "./vendor-api-auth-checks.ts";
import { startVendorApiFixture, type VendorApiFixture } from "./vendor-api-fixture.ts";

let fixture: VendorApiFixture;
let acmeKeyId: string;
let globexKeyId: string;

beforeAll(async () => {
  fixture = await startVendorApiFixture();
  const mint = async (token: string) => (await fixture.call("POST", "/api/keys", { token, body: { server_option: "standard", name: "usage", quota: "1" } })).body.id as string;
  acmeKeyId = await mint(fixture.acme.all);
  globexKeyId = await mint(fixture.globex);
  const { prisma } = fixture.control.services.db;
  const key = await prisma.apiKey.findUniqueOrThrow({ where: { id: acmeKeyId } });
  const record = (model: string, finishedAt: string, costNano: bigint) => ({
    requestId: newId("req"), apiKeyId: key.id, vendorId: key.vendorId, model, endpoint: "chat.completions", status: "ok",
    inputTokens: 100, outputTokens: 50, costNano, startedAt: new Date(finishedAt), finishedAt: new Date(finishedAt),
  });
  await prisma.usageRecord.createMany({
    data: [record("gpt-small", "2030-01-01T10:00:00Z", 1_000n), record("gpt-small", "2030-01-02T10:00:00Z", 2_000n), record("claude-large", "2030-01-02T11:00:00Z", 3_000n)],
  });
  await prisma.usageAggregate.createMany({
    data: [
      { apiKeyId: key.id, model: "gpt-small", day: new Date("2030-01-01"), requests: 1, inputTokens: 100n, outputTokens: 50n, costNano: 1_000n },
      { apiKeyId: key.id, model: "gpt-small", day: new Date("2030-01-02"), requests: 1, inputTokens: 100n, outputTokens: 50n, costNano: 2_000n },
      { apiKeyId: key.id, model: "claude-large", day: new Date("2030-01-02"), requests: 1, inputTokens: 100n, outputTokens: 50n, costNano: 3_000n },
    ],
  });
}, 60_000);
afterAll(async () => {
  await fixture?.close();
});

describe("GET /api/keys/{id}/usage", () => {
  vendorAuthChecks(() => fixture, { method: "GET", path: () => `/api/keys/${acmeKeyId}/usage`, scope: "usage:read" });

  it("returns the /v1/usage body of the key", async () => {
    const response = await fixture.call("GET", `/api/keys/${acmeKeyId}/usage`, { token: fixture.acme["usage:read"] });
    expect(response.status).toBe(200);
    expect(keyUsageSchema.parse(response.body)).toEqual({
      object: "usage",
      key: { id: acmeKeyId, name: "usage", prefix: expect.stringMatching(/^sk-/), server_option: "standard", status: "active", expires_at: null },
      quota: { limit: "1.000000", used: "0.000006", remaining: "0.999994", currency: "USD" },
      consumption: { requests: 3, input_tokens: 300, output_tokens: 150, cached_input_tokens: 0, cache_write_tokens: 0, cache_write_1h_tokens: 0, reasoning_tokens: 0, images: 0, web_search_requests: 0, cost: "0.000006" },
      by_model: [
        { model: "claude-large", requests: 1, input_tokens: 100, output_tokens: 50, cached_input_tokens: 0, cache_write_tokens: 0, cache_write_1h_tokens: 0, reasoning_tokens: 0, images: 0, web_search_requests: 0, cost: "0.000003" },
        { model: "gpt-small", requests: 2, input_tokens: 200, output_tokens: 100, cached_input_tokens: 0, cache_write_tokens: 0, cache_write_1h_tokens: 0, reasoning_tokens: 0, images: 0, web_search_requests: 0, cost: "0.000003" },
      ],
      rate_limits: { rpm: 600, tpm: 200000 },
    });
  });

  it("narrows to ?from=&to=", async () => {
    const response = await fixture.call("GET", `/api/keys/${acmeKeyId}/usage?from=2030-01-02T00:00:00Z&to=2030-01-02T10:30:00Z`);
    expect(response.status).toBe(200);
    expect(response.body.consumption).toEqual({ requests: 1, input_tokens: 100, output_tokens: 50, cached_input_tokens: 0, cache_write_tokens: 0, cache_write_1h_tokens: 0, reasoning_tokens: 0, images: 0, web_search_requests: 0, cost: "0.000002" });
  });

  it("400 naming a bad from or to", async () => {
    const response = await fixture.call("GET", `/api/keys/${acmeKeyId}/usage?from=yesterday`);
    expectError(response, 400, "invalid_body");
    expect(response.body.error.param).toBe("from");
  });

  it("404 for another vendor's key and for an unknown one", async () => {
    expectError(await fixture.call("GET", `/api/keys/${globexKeyId}/usage`), 404, "not_found");
    expectError(await fixture.call("GET", "/api/keys/key_nope/usage"), 404, "not_found");
    expect((await fixture.call("GET", `/api/keys/${globexKeyId}/usage`, { token: fixture.globex })).status).toBe(200);
  });
});
