// A plan's price (issue 38): charged to the customer's wallet when a subscription starts and at
// each renewal, once per period (a `plan` wallet entry, source `sub:<id>:<period start>`); a
// prepaid wallet that cannot pay is refused (402) or lapses at renewal; renewal by a sweeper with
// an injected clock, two replicas at once. Also: Idempotency-Key on POST /api/customers and
// /api/plans, GET /api/plans/{id} and a customer's subscriptions.
import { hashSecret, parseUsdToNano } from "@gateway/contracts";
import { readWallet } from "@gateway/redis-store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectError, vendorAuthChecks } from "../routes/vendor-api-auth-checks.ts";
import { startVendorApiFixture, type VendorApiFixture } from "../routes/vendor-api-fixture.ts";
import { customerStores } from "../routes/api-customers.ts";
import { customerSchema, planSchema, subscriptionListSchema } from "./customer-schemas.ts";
import { planChargeSource } from "./plan-charges.ts";
import { SubscriptionRenewal } from "./subscription-renewal.ts";

let fixture: VendorApiFixture;
beforeAll(async () => {
  fixture = await startVendorApiFixture();
}, 60_000);
afterAll(async () => {
  await fixture?.close();
});

const DAY = 86_400_000;
const prisma = () => fixture.control.services.db.prisma;
const credited = async (customerId: string) => (await readWallet(fixture.control.services.redis, fixture.control.services.config.REDIS_PREFIX, customerId)).creditedNano;
const planEntries = (customerId: string) => prisma().walletEntry.findMany({ where: { customerId, kind: "plan" }, orderBy: { createdAt: "asc" } });
/** A control plane's renewal sweep whose clock reads `at` (ms); it sweeps every test's subscriptions, so tests read their own. */
const renewals = (subscriptionId: string) => prisma().auditEntry.count({ where: { keyId: subscriptionId, action: "subscription.renewed" } });
const renewalAt = (at: number) => new SubscriptionRenewal({ prisma: prisma(), stores: customerStores(fixture.control.services), logger: fixture.control.services.logger }, 0, () => at);

async function customerWith(billing: "prepaid" | "postpaid", credit?: string) {
  const customer = await fixture.call("POST", "/api/customers", { body: { name: `${billing} subscriber`, billing } });
  expect(customer.status).toBe(201);
  if (credit) expect((await fixture.call("POST", `/api/customers/${customer.body.id}/credits`, { body: { amount: credit } })).status).toBe(201);
  return customer.body.id as string;
}
async function plan(price: string, period: "day" | "week" | "month" = "day") {
  const created = await fixture.call("POST", "/api/plans", { body: { name: `plan ${price}/${period}`, price, period, limits: [{ window: "5h", requests: 100 }] } });
  expect(created.status).toBe(201);
  return created.body.id as string;
}
const subscribe = (customerId: string, planId: string) => fixture.call("POST", `/api/customers/${customerId}/subscriptions`, { body: { plan_id: planId } });

describe("a plan's price at subscribe", () => {
  it("a prepaid wallet pays it at once: a `plan` entry of minus the price, the balance down by it, to the nano-dollar", async () => {
    const customerId = await customerWith("prepaid", "25.000001");
    const planId = await plan("20.00");
    const subscribed = await subscribe(customerId, planId);
    expect(subscribed.status).toBe(201);
    const entries = await planEntries(customerId);
    expect(entries).toEqual([expect.objectContaining({ amountNano: -parseUsdToNano("20"), sourceId: planChargeSource(subscribed.body.id, new Date(subscribed.body.current_period_start)) })]);
    expect(await credited(customerId)).toBe(parseUsdToNano("5.000001"));
    const customer = await fixture.call("GET", `/api/customers/${customerId}`);
    expect(customerSchema.parse(customer.body)).toMatchObject({ balance: "5.000001", subscription: { id: subscribed.body.id } });
    // The wallet's entries list it, newest first.
    const listed = await fixture.call("GET", `/api/customers/${customerId}/wallet/entries`, { token: fixture.acme["customers:read"] });
    expect(listed.body.data.map((entry: { kind: string; amount: string }) => [entry.kind, entry.amount])).toEqual([["plan", "-20.000000"], ["grant", "25.000001"]]);
    const audit = await prisma().auditEntry.findFirstOrThrow({ where: { keyId: subscribed.body.id, action: "subscription.created" } });
    expect(audit.changes).toMatchObject({ charged: "20.000000", wallet_entry_id: entries[0]!.id });
  });

  it("a prepaid wallet short of the price: 402 insufficient_balance, no subscription, no entry, the balance untouched; the old subscription stays", async () => {
    const customerId = await customerWith("prepaid", "30");
    const cheap = await plan("10.00");
    const first = await subscribe(customerId, cheap);
    expect(first.status).toBe(201);
    const before = await credited(customerId);
    const dear = await plan("20.000001");
    const refused = await subscribe(customerId, dear);
    expectError(refused, 402, "insufficient_balance");
    expect(refused.body.error.type).toBe("insufficient_quota");
    expect(refused.body.error.message).toContain("20.000001");
    expect(await credited(customerId)).toBe(before);
    expect(await planEntries(customerId)).toHaveLength(1);
    expect(await prisma().subscription.findMany({ where: { customerId } })).toEqual([expect.objectContaining({ id: first.body.id, status: "active" })]);
    // Exactly the price fits.
    expect((await subscribe(customerId, await plan("20.00"))).status).toBe(201);
    expect(await credited(customerId)).toBe(0n);
  });

  it("postpaid: always charged, the balance goes below zero (what the vendor bills); a free plan writes nothing", async () => {
    const customerId = await customerWith("postpaid");
    expect((await subscribe(customerId, await plan("12.50"))).status).toBe(201);
    expect((await fixture.call("GET", `/api/customers/${customerId}`)).body.balance).toBe("-12.500000");
    expect((await subscribe(customerId, await plan("0"))).status).toBe(201);
    expect(await planEntries(customerId)).toHaveLength(1);
  });

  it("10 concurrent subscribes on a wallet that pays 3: exactly 3 charged, the wallet at zero, one active subscription", async () => {
    const customerId = await customerWith("prepaid", "30");
    const planId = await plan("10.00");
    const results = await Promise.all(Array.from({ length: 10 }, () => subscribe(customerId, planId)));
    expect(results.filter((result) => result.status === 201)).toHaveLength(3);
    for (const result of results.filter((item) => item.status !== 201)) expectError(result, 402, "insufficient_balance");
    expect(await credited(customerId)).toBe(0n);
    expect(await planEntries(customerId)).toHaveLength(3);
    expect(await prisma().subscription.count({ where: { customerId, status: "active" } })).toBe(1);
  });
});

describe("renewal (injected clock)", () => {
  it("renews at the period's end and charges the next period once, also with two replicas sweeping at once; a wallet that cannot pay lapses", async () => {
    const customerId = await customerWith("prepaid", "45");
    const key = await fixture.call("POST", "/api/keys", { body: { server_option: "standard", customer_id: customerId } });
    const subscribed = await subscribe(customerId, await plan("20.00"));
    const start = Date.parse(subscribed.body.current_period_start);
    const end = Date.parse(subscribed.body.current_period_end);
    expect(end - start).toBe(DAY);
    // Not due a millisecond before its end.
    await renewalAt(end - 1).runOnce();
    expect(await renewals(subscribed.body.id)).toBe(0);
    // Two control planes sweep at once at its end: one renewal, one charge.
    const reports = await Promise.all([renewalAt(end).runOnce(), renewalAt(end + 1000).runOnce()]);
    expect(reports.every((report) => report.renewed >= 0)).toBe(true);
    expect(await renewals(subscribed.body.id)).toBe(1);
    const renewed = await fixture.call("GET", `/api/customers/${customerId}/subscriptions`, { token: fixture.acme["customers:read"] });
    expect(subscriptionListSchema.parse(renewed.body).data).toEqual([
      expect.objectContaining({ id: subscribed.body.id, status: "active", current_period_start: new Date(end).toISOString(), current_period_end: new Date(end + DAY).toISOString() }),
    ]);
    const charges = await planEntries(customerId);
    expect(charges.map((entry) => entry.sourceId)).toEqual([planChargeSource(subscribed.body.id, new Date(start)), planChargeSource(subscribed.body.id, new Date(end))]);
    expect(await credited(customerId)).toBe(parseUsdToNano("5"));
    // Run again at the same time: nothing more.
    await renewalAt(end + 2000).runOnce();
    expect(await renewals(subscribed.body.id)).toBe(1);
    expect(await planEntries(customerId)).toHaveLength(2);
    // The next end: $5 does not pay $20; the subscription lapses at the end of what was paid, its keys free of the plan.
    expect((await fixture.control.services.records.readKey(hashSecret(key.body.key)))?.customer?.plan?.subscriptionId).toBe(subscribed.body.id);
    expect((await renewalAt(end + DAY + 5000).runOnce()).lapsed).toBeGreaterThanOrEqual(1);
    const lapsed = await prisma().subscription.findUniqueOrThrow({ where: { id: subscribed.body.id } });
    expect(lapsed).toMatchObject({ status: "canceled", canceledAt: new Date(end + DAY) });
    expect(await credited(customerId)).toBe(parseUsdToNano("5"));
    expect(await planEntries(customerId)).toHaveLength(2);
    expect((await fixture.control.services.records.readKey(hashSecret(key.body.key)))?.customer?.plan).toBeNull();
    expect(await prisma().auditEntry.findFirst({ where: { keyId: subscribed.body.id, action: "subscription.lapsed" } })).toMatchObject({ tokenId: null, changes: expect.objectContaining({ reason: "insufficient_balance" }) });
    expect((await fixture.call("GET", `/api/customers/${customerId}`)).body.subscription).toBeNull();
  });

  it("a postpaid subscription the sweep reaches three periods late catches up: one charge per period, each once", async () => {
    const customerId = await customerWith("postpaid");
    const subscribed = await subscribe(customerId, await plan("1.00", "week"));
    const start = Date.parse(subscribed.body.current_period_start);
    const at = start + 3 * 7 * DAY + 60_000;
    expect((await renewalAt(at).runOnce()).renewed).toBeGreaterThanOrEqual(3);
    await renewalAt(at).runOnce();
    const row = await prisma().subscription.findUniqueOrThrow({ where: { id: subscribed.body.id } });
    expect(row.currentPeriodStart.getTime()).toBe(start + 3 * 7 * DAY);
    expect(row.currentPeriodEnd.getTime()).toBe(start + 4 * 7 * DAY);
    const sources = (await planEntries(customerId)).map((entry) => entry.sourceId);
    expect(new Set(sources).size).toBe(4);
    expect((await fixture.call("GET", `/api/customers/${customerId}`)).body.balance).toBe("-4.000000");
    expect(await prisma().auditEntry.count({ where: { keyId: subscribed.body.id, action: "subscription.renewed" } })).toBe(3);
  });

  it("a canceled subscription is never renewed", async () => {
    const customerId = await customerWith("postpaid");
    const subscribed = await subscribe(customerId, await plan("3.00"));
    expect((await fixture.call("DELETE", `/api/customers/${customerId}/subscriptions/${subscribed.body.id}`)).status).toBe(200);
    await renewalAt(Date.parse(subscribed.body.current_period_end) + 1).runOnce();
    expect(await renewals(subscribed.body.id)).toBe(0);
    expect(await planEntries(customerId)).toHaveLength(1);
  });
});

describe("Idempotency-Key on POST /api/customers and POST /api/plans", () => {
  for (const [path, body, model] of [
    ["/api/customers", { name: "Once", billing: "prepaid" }, "customer"],
    ["/api/plans", { name: "Once", price: "9.00", limits: [{ window: "day", requests: 5 }] }, "plan"],
  ] as const) {
    it(`${path}: a retry (also 5 at once) creates one and replays the first answer; another body with the key is 409; a bad key is 400`, async () => {
      const key = `idem-${Math.random().toString(36).slice(2)}`;
      const results = await Promise.all(Array.from({ length: 5 }, () => fixture.call("POST", path, { body, headers: { "idempotency-key": key } })));
      for (const result of results) expect(result.status).toBe(201);
      expect(new Set(results.map((result) => result.body.id)).size).toBe(1);
      expect(results.filter((result) => result.headers.get("idempotent-replayed") === "true")).toHaveLength(4);
      const again = await fixture.call("POST", path, { body, headers: { "idempotency-key": key } });
      expect(again.body).toEqual(results[0]!.body);
      const id = results[0]!.body.id as string;
      const count = model === "customer" ? await prisma().customer.count({ where: { name: "Once", id } }) : await prisma().plan.count({ where: { name: "Once", id } });
      expect(count).toBe(1);
      expect(model === "customer" ? await prisma().customer.count({ where: { name: "Once" } }) : await prisma().plan.count({ where: { name: "Once" } })).toBe(1);
      expectError(await fixture.call("POST", path, { body: { ...body, name: "Other" }, headers: { "idempotency-key": key } }), 409, "idempotency_conflict");
      expectError(await fixture.call("POST", path, { body, headers: { "idempotency-key": "x".repeat(300) } }), 400, "invalid_header");
      // Another vendor's same key is its own.
      expect((await fixture.call("POST", path, { body, token: fixture.globex, headers: { "idempotency-key": key } })).body.id).not.toBe(id);
    });
  }
});

describe("GET /api/plans/{id} and GET /api/customers/{id}/subscriptions", () => {
  vendorAuthChecks(() => fixture, { method: "GET", path: `/api/plans/plan_${"0".repeat(32)}`, scope: "customers:read" });
  vendorAuthChecks(() => fixture, { method: "GET", path: `/api/customers/cus_${"0".repeat(32)}/subscriptions`, scope: "customers:read" });
  vendorAuthChecks(() => fixture, { method: "GET", path: `/api/customers/cus_${"0".repeat(32)}/wallet/entries`, scope: "customers:read" });
  vendorAuthChecks(() => fixture, { method: "GET", path: `/api/customers/cus_${"0".repeat(32)}/payments`, scope: "customers:read" });

  it("reads a plan; another vendor's or an unknown id is a 404", async () => {
    const planId = await plan("4.00", "week");
    const read = await fixture.call("GET", `/api/plans/${planId}`, { token: fixture.acme["customers:read"] });
    expect(read.status).toBe(200);
    expect(planSchema.strict().parse(read.body)).toMatchObject({ id: planId, price: "4.000000", period: "week" });
    expectError(await fixture.call("GET", `/api/plans/${planId}`, { token: fixture.globex }), 404, "not_found");
    expectError(await fixture.call("GET", "/api/plans/nope"), 404, "not_found");
    expectError(await fixture.call("GET", `/api/plans/plan_${"f".repeat(32)}`), 404, "not_found");
  });

  it("lists a customer's subscriptions newest first, cursor-paginated, filtered by status; other vendors' customers 404; bad input 400", async () => {
    const customerId = await customerWith("postpaid");
    const ids: string[] = [];
    for (const price of ["1", "2", "3"]) ids.push((await subscribe(customerId, await plan(price))).body.id);
    const first = await fixture.call("GET", `/api/customers/${customerId}/subscriptions?limit=2`);
    expect(first.body).toMatchObject({ object: "list", has_more: true });
    expect(first.body.data.map((item: { id: string }) => item.id)).toEqual([ids[2], ids[1]]);
    const second = await fixture.call("GET", `/api/customers/${customerId}/subscriptions?limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(second.body.data.map((item: { id: string }) => item.id)).toEqual([ids[0]]);
    const active = await fixture.call("GET", `/api/customers/${customerId}/subscriptions?status=active`);
    expect(active.body.data.map((item: { id: string; status: string }) => [item.id, item.status])).toEqual([[ids[2], "active"]]);
    expect((await fixture.call("GET", `/api/customers/${customerId}/subscriptions?status=canceled`)).body.data).toHaveLength(2);
    expectError(await fixture.call("GET", `/api/customers/${customerId}/subscriptions`, { token: fixture.globex }), 404, "not_found");
    const badStatus = await fixture.call("GET", `/api/customers/${customerId}/subscriptions?status=paused`);
    expectError(badStatus, 400, "invalid_body");
    expect(badStatus.body.error.param).toBe("status");
    expect((await fixture.call("GET", `/api/customers/${customerId}/subscriptions?cursor=abc`)).body.error).toMatchObject({ code: "invalid_body", param: "cursor" });
    expect((await fixture.call("GET", `/api/customers/${customerId}/subscriptions?limit=0`)).body.error).toMatchObject({ code: "invalid_body", param: "limit" });
  });
});
