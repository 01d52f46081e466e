// Contract section 14, "Bounds everywhere": a quota, a top-up (and the quota it makes) or a budget
// above 1,000,000,000 USD is a 400 naming the field; no amount, however huge, negative or malformed,
// is ever a 500 (a top-up past the database's range used to be one).
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectError } from "./vendor-api-auth-checks.ts";
import { startVendorApiFixture, type ApiResponse, type VendorApiFixture } from "./vendor-api-fixture.ts";

let fixture: VendorApiFixture;

beforeAll(async () => {
  fixture = await startVendorApiFixture();
}, 60_000);
afterAll(async () => {
  await fixture?.close();
});

const create = (body: Record<string, unknown>) => fixture.call("POST", "/api/keys", { body: { server_option: "standard", ...body } });
const patch = (id: string, body: Record<string, unknown>) => fixture.call("PATCH", `/api/keys/${id}`, { body });

async function mint(quota: string | null): Promise<string> {
  const response = await create({ quota });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.id as string;
}

function expectRefused(response: ApiResponse, param: string): void {
  expectError(response, 400, "invalid_body");
  expect(response.body.error.param).toBe(param);
  expect(response.body.error.message).toMatch(new RegExp(`^${param.replace(".", "\\.")}: `));
}

describe("money bounds on keys", () => {
  it("takes 1,000,000,000 USD and refuses a micro-dollar more, naming the field", async () => {
    const id = await mint("1000000000");
    expect((await fixture.call("GET", `/api/keys/${id}`)).body.quota).toBe("1000000000.000000");
    expectRefused(await create({ quota: "1000000000.000001" }), "quota");
    expectRefused(await create({ budget: { limit: "1000000001", period: "day" } }), "budget.limit");
    expectRefused(await patch(id, { quota: "9999999999" }), "quota");
    expectRefused(await patch(id, { budget: { limit: "1000000000.5", period: "month" } }), "budget.limit");
    expect((await patch(id, { budget: { limit: "1000000000", period: "month" } })).status).toBe(200);
  });

  it("refuses a top-up whose resulting quota would pass the bound, and changes nothing", async () => {
    const id = await mint("999999990");
    const topped = await patch(id, { quota_add: "10" });
    expect(topped.status).toBe(200);
    expect(topped.body.quota).toBe("1000000000.000000");
    // Repeated in-bound top-ups used to reach BIGINT's range (a 500); now the sum is checked.
    expectRefused(await patch(id, { quota_add: "0.000001" }), "quota_add");
    expectRefused(await patch(id, { quota_add: "1000000000" }), "quota_add");
    expectRefused(await patch(id, { quota_add: "99999999999" }), "quota_add");
    expect((await fixture.call("GET", `/api/keys/${id}`)).body.quota).toBe("1000000000.000000");
  });

  /** Amounts as a hostile client sends them: huge, negative, fractional, in exponent form, of the wrong type, or garbage. */
  const amount = fc.oneof(
    fc.bigInt({ min: 0n, max: 10n ** 40n }).map(String),
    fc.tuple(fc.bigInt({ min: 0n, max: 10n ** 12n }), fc.stringMatching(/^\d{1,12}$/)).map(([whole, fraction]) => `${whole}.${fraction}`),
    fc.bigInt({ min: -(10n ** 30n), max: -1n }).map(String),
    fc.double().map(String),
    fc.double(),
    fc.integer(),
    fc.constantFrom("1e9", "1e309", "Infinity", "NaN", "-0", "0x10", " 5", "5 ", "", ".5", "5.", "１０", "1_000", "+1", "9".repeat(400)),
    fc.string(),
    fc.constantFrom(null, true, [], {}, { usd: "1" }),
  );
  const field = fc.constantFrom("quota", "quota_add", "budget");

  it("answers every amount with 2xx or a 4xx naming the field, never a 500 (property)", async () => {
    const id = await mint("500000000");
    await fc.assert(
      fc.asyncProperty(field, amount, fc.boolean(), async (name, value, creating) => {
        const body = name === "budget" ? { budget: { limit: value, period: "week" } } : { [name]: value };
        const response = creating && name !== "quota_add" ? await create(body) : await patch(id, body);
        expect(response.status, JSON.stringify({ body, answer: response.body })).toBeLessThan(500);
        if (response.status >= 400) {
          expect(response.status).toBe(400);
          // null for `quota` is "unlimited": accepted. Everything refused names its field.
          expect(response.body.error.param).toBe(name === "budget" ? "budget.limit" : name);
        }
      }),
      { numRuns: 150 },
    );
    // The key still holds a quota within the bound, whatever was accepted.
    const quota = (await fixture.call("GET", `/api/keys/${id}`)).body.quota as string | null;
    if (quota !== null) expect(Number(quota)).toBeLessThanOrEqual(1_000_000_000);
  });
});
