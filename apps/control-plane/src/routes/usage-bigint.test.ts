// Contract section 14, "Bounds everywhere": token counts up to 2^53 are stored (BIGINT) and the
// vendor API's JSON shows them as plain numbers, exact, in the request log and the usage report.
import { newId } from "@gateway/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startVendorApiFixture, type VendorApiFixture } from "./vendor-api-fixture.ts";

const HUGE = 2 ** 40;
let fixture: VendorApiFixture;
let keyId: string;
let requestId: string;

beforeAll(async () => {
  fixture = await startVendorApiFixture();
  keyId = (await fixture.call("POST", "/api/keys", { body: { server_option: "standard", name: "huge" } })).body.id as string;
  const { prisma } = fixture.control.services.db;
  const key = await prisma.apiKey.findUniqueOrThrow({ where: { id: keyId } });
  requestId = newId("req");
  const finishedAt = new Date("2030-03-04T10:00:00Z");
  await prisma.usageRecord.create({
    data: {
      requestId, apiKeyId: key.id, vendorId: key.vendorId, model: "gpt-small", endpoint: "chat.completions", status: "interrupted", estimated: true,
      inputTokens: BigInt(HUGE), outputTokens: BigInt(HUGE) + 1n, reasoningTokens: BigInt(HUGE), costNano: 10n ** 15n, startedAt: finishedAt, finishedAt,
    },
  });
}, 60_000);
afterAll(async () => {
  await fixture?.close();
});

describe("token counts past 2^31 in the vendor API", () => {
  it("GET /api/requests shows them as exact JSON numbers", async () => {
    const response = await fixture.call("GET", `/api/requests?key_id=${keyId}&from=2030-03-04T00:00:00Z&to=2030-03-05T00:00:00Z`);
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual([expect.objectContaining({ id: requestId, status: "interrupted", estimated: true, input_tokens: HUGE, output_tokens: HUGE + 1, reasoning_tokens: HUGE, cost_nano: "1000000000000000" })]);
  });

  it("GET /api/usage sums them exactly (a window of part of a day reads the ledger rows)", async () => {
    const response = await fixture.call("GET", "/api/usage?from=2030-03-04T01:00:00Z&to=2030-03-04T23:00:00Z&group_by=key");
    expect(response.status).toBe(200);
    expect(response.body.totals).toMatchObject({ requests: 1, input_tokens: HUGE, output_tokens: HUGE + 1, reasoning_tokens: HUGE });
  });
});
