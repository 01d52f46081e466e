// Customers, plans and subscriptions (contract section 19) through the vendor API: shapes, scopes,
// bad input (400 naming the field), other vendors' ids (404), and what every proxy reads of them
// in the key records.
import { hashSecret, newId } from "@gateway/contracts";
import { addWalletCredit, budgetCounter, readCustomerBudget, readWallet } from "@gateway/redis-store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { customerListSchema, customerSchema, planSchema, subscriptionSchema } from "../customers/customer-schemas.ts";
import { rebuildRedis } from "../rebuild-redis.ts";
import { expectError, vendorAuthChecks } from "./vendor-api-auth-checks.ts";
import { startVendorApiFixture, type VendorApiFixture } from "./vendor-api-fixture.ts";

let fixture: VendorApiFixture;
beforeAll(async () => {
  fixture = await startVendorApiFixture();
}, 60_000);
afterAll(async () => {
  await fixture?.close();
});

const prisma = () => fixture.control.services.db.prisma;
const redis = () => fixture.control.services.redis;
const prefix = () => fixture.control.services.config.REDIS_PREFIX;
const createCustomer = (body: unknown, token?: string) => fixture.call("POST", "/api/customers", { body, token });
const createPlan = (body: unknown, token?: string) => fixture.call("POST", "/api/plans", { body, token });
const keyRecord = async (plaintext: string) => fixture.control.services.records.readKey(hashSecret(plaintext));

describe("POST /api/customers", () => {
  vendorAuthChecks(() => fixture, { method: "POST", path: "/api/customers", scope: "customers:write", body: { name: "x" } });

  it("creates a customer: 201 with the contract's object, audited", async () => {
    const response = await createCustomer({ name: "Alice", email: "alice@example.com", metadata: { tier: 1 }, budget: { limit: "5.00", period: "day" }, billing: "prepaid" }, fixture.acme["customers:write"]);
    expect(response.status).toBe(201);
    expect(customerSchema.strict().parse(response.body)).toEqual({
      id: expect.stringMatching(/^cus_[0-9a-f]{32}$/),
      object: "customer",
      name: "Alice",
      email: "alice@example.com",
      status: "active",
      billing: "prepaid",
      balance: "0.000000",
      budget: { limit: "5.000000", period: "day", used: "0.000000", resets_at: expect.any(String) },
      metadata: { tier: 1 },
      subscription: null,
      created_at: expect.any(String),
    });
    const audit = await prisma().auditEntry.findFirstOrThrow({ where: { keyId: response.body.id } });
    expect(audit).toMatchObject({ action: "customer.created", changes: { name: "Alice", billing: "prepaid", email: "alice@example.com", budget: { limit: "5.000000", period: "day" } } });
  });

  it("defaults: postpaid, no email, no budget", async () => {
    const response = await createCustomer({ name: "Bob" });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ name: "Bob", email: null, billing: "postpaid", budget: null, balance: "0.000000", metadata: {} });
  });

  it.each([
    [{}, "name"],
    [{ name: "" }, "name"],
    [{ name: "x", email: "not-an-email" }, "email"],
    [{ name: "x", billing: "credit" }, "billing"],
    [{ name: "x", budget: { limit: "-1", period: "day" } }, "budget.limit"],
    [{ name: "x", budget: { limit: "1.00", period: "year" } }, "budget.period"],
    [{ name: "x", budget: { limit: "1000000000.000001", period: "day" } }, "budget.limit"],
    [{ name: "x", balance: "10" }, "balance"],
    [{ name: "x", metadata: [] }, "metadata"],
  ])("400 naming the field for %j", async (body, param) => {
    const response = await createCustomer(body);
    expectError(response, 400, "invalid_body");
    expect(response.body.error.param).toBe(param);
  });
});

describe("GET /api/customers and /api/customers/{id}", () => {
  vendorAuthChecks(() => fixture, { method: "GET", path: "/api/customers", scope: "customers:read" });

  it("lists the vendor's customers newest first, paginated, searchable; never another vendor's", async () => {
    const names = ["Page One", "Page Two", "Page Three"];
    for (const name of names) await createCustomer({ name, email: `${name.replaceAll(" ", "").toLowerCase()}@example.com` });
    await createCustomer({ name: "Page Globex" }, fixture.globex);
    const first = await fixture.call("GET", "/api/customers?limit=2&search=page", { token: fixture.acme["customers:read"] });
    expect(first.status).toBe(200);
    customerListSchema.parse(first.body);
    expect(first.body.data.map((customer: { name: string }) => customer.name)).toEqual(["Page Three", "Page Two"]);
    expect(first.body.has_more).toBe(true);
    const second = await fixture.call("GET", `/api/customers?limit=2&search=page&cursor=${first.body.next_cursor}`);
    expect(second.body.data.map((customer: { name: string }) => customer.name)).toEqual(["Page One"]);
    expect(second.body).toMatchObject({ has_more: false, next_cursor: null });
    const byEmail = await fixture.call("GET", "/api/customers?search=PAGETWO@");
    expect(byEmail.body.data.map((customer: { name: string }) => customer.name)).toEqual(["Page Two"]);
    expectError(await fixture.call("GET", "/api/customers?cursor=junk"), 400, "invalid_body");
    expectError(await fixture.call("GET", "/api/customers?limit=0"), 400, "invalid_body");
  });

  it("reads one customer; another vendor's, unknown and malformed ids are 404", async () => {
    const created = await createCustomer({ name: "Reader" });
    const read = await fixture.call("GET", `/api/customers/${created.body.id}`, { token: fixture.acme["customers:read"] });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
    const globex = await createCustomer({ name: "Theirs" }, fixture.globex);
    expectError(await fixture.call("GET", `/api/customers/${globex.body.id}`), 404, "not_found");
    expectError(await fixture.call("GET", `/api/customers/cus_${"0".repeat(32)}`), 404, "not_found");
    expectError(await fixture.call("GET", "/api/customers/key_abc"), 404, "not_found");
    expectError(await fixture.call("GET", `/api/customers/${created.body.id}`, { token: fixture.acme["customers:write"] }), 403, "missing_scope");
  });
});

describe("PATCH /api/customers/{id}", () => {
  it("changes what the body names, audited; a disabled customer's keys read disabled in their records; active again lifts it", async () => {
    const created = await createCustomer({ name: "Patchy" });
    const key = await fixture.call("POST", "/api/keys", { body: { server_option: "standard", customer_id: created.body.id } });
    expect(key.status).toBe(201);
    expect(key.body.customer_id).toBe(created.body.id);
    const before = await keyRecord(key.body.key);
    expect(before?.customer).toEqual({ id: created.body.id, status: "active", prepaid: false, budget: null, plan: null });
    const patched = await fixture.call("PATCH", `/api/customers/${created.body.id}`, { body: { name: "Patched", email: "p@example.com", status: "disabled", budget: { limit: "2.50", period: "week" } }, token: fixture.acme["customers:write"] });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: "Patched", email: "p@example.com", status: "disabled", budget: { limit: "2.500000", period: "week", used: "0.000000" } });
    const after = await keyRecord(key.body.key);
    expect(after?.customer).toEqual({ id: created.body.id, status: "disabled", prepaid: false, budget: { limitNano: "2500000000", period: "week" }, plan: null });
    expect(after!.revision).toBeGreaterThan(before!.revision);
    // The new budget's counter starts from the ledger (nothing spent yet).
    expect(await readCustomerBudget(redis(), prefix(), created.body.id, budgetCounter("week", Date.now()))).toEqual({ spent: 0n, reserved: 0n });
    const audit = await prisma().auditEntry.findFirstOrThrow({ where: { keyId: created.body.id, action: "customer.updated" } });
    expect(audit.changes).toMatchObject({ name: "Patched", status: "disabled", budget: { limit: "2.500000", period: "week" } });
    await fixture.call("PATCH", `/api/customers/${created.body.id}`, { body: { status: "active", budget: null } });
    expect((await keyRecord(key.body.key))?.customer).toMatchObject({ status: "active", budget: null });
  });

  it("400 naming the field; 404 for another vendor's customer; 403 without customers:write", async () => {
    const created = await createCustomer({ name: "Strict" });
    for (const [body, param] of [
      [{ status: "revoked" }, "status"],
      [{ billing: "prepaid" }, "billing"],
      [{ budget: { limit: "abc", period: "day" } }, "budget.limit"],
      [{ name: 5 }, "name"],
    ] as const) {
      const response = await fixture.call("PATCH", `/api/customers/${created.body.id}`, { body });
      expectError(response, 400, "invalid_body");
      expect(response.body.error.param).toBe(param);
    }
    const globex = await createCustomer({ name: "Not yours" }, fixture.globex);
    expectError(await fixture.call("PATCH", `/api/customers/${globex.body.id}`, { body: { name: "mine" } }), 404, "not_found");
    expectError(await fixture.call("PATCH", `/api/customers/${created.body.id}`, { body: { name: "x" }, token: fixture.acme["customers:read"] }), 403, "missing_scope");
  });
});

describe("POST /api/keys with customer_id", () => {
  it("mints a key of the vendor's customer, shown in the key object (get and list); another vendor's or an unknown customer is 404 naming customer_id", async () => {
    const created = await createCustomer({ name: "Key owner", billing: "prepaid" });
    const key = await fixture.call("POST", "/api/keys", { body: { server_option: "standard", customer_id: created.body.id } });
    expect(key.status).toBe(201);
    const read = await fixture.call("GET", `/api/keys/${key.body.id}`);
    expect(read.body.customer_id).toBe(created.body.id);
    const list = await fixture.call("GET", `/api/keys?search=${key.body.id}`);
    expect(list.body.data[0].customer_id).toBe(created.body.id);
    const second = await fixture.call("POST", "/api/keys", { body: { server_option: "standard", customer_id: created.body.id } });
    const byCustomer = await fixture.call("GET", `/api/keys?customer_id=${created.body.id}`);
    expect(byCustomer.body.data.map((item: { id: string }) => item.id)).toEqual([second.body.id, key.body.id]);
    const theirs = await createCustomer({ name: "Theirs" }, fixture.globex);
    expect((await fixture.call("GET", `/api/keys?customer_id=${theirs.body.id}`)).body.data).toEqual([]);
    expect((await keyRecord(key.body.key))?.customer).toMatchObject({ id: created.body.id, prepaid: true });
    const plain = await fixture.call("POST", "/api/keys", { body: { server_option: "standard" } });
    expect(plain.body.customer_id).toBeNull();
    expect((await keyRecord(plain.body.key))?.customer ?? null).toBeNull();
    const globex = await createCustomer({ name: "G" }, fixture.globex);
    for (const customerId of [globex.body.id, `cus_${"1".repeat(32)}`, "nonsense"]) {
      const refused = await fixture.call("POST", "/api/keys", { body: { server_option: "standard", customer_id: customerId } });
      expectError(refused, 404, "not_found");
      expect(refused.body.error.param).toBe("customer_id");
    }
  });

  it("the prepaid balance is wallet credits minus the ledger spend of its keys", async () => {
    const created = await createCustomer({ name: "Wallet", billing: "prepaid" });
    const key = await fixture.call("POST", "/api/keys", { body: { server_option: "standard", customer_id: created.body.id } });
    await prisma().walletEntry.create({ data: { id: `we_${newId("aud").slice(4)}`, customerId: created.body.id, amountNano: 10_000_000_000n, kind: "grant" } });
    await addWalletCredit(redis(), prefix(), created.body.id, 10_000_000_000n);
    await prisma().usageAggregate.create({ data: { apiKeyId: key.body.id, model: "gpt-small", day: new Date("2026-11-20T00:00:00Z"), requests: 1, costNano: 1_234_567_891n } });
    const read = await fixture.call("GET", `/api/customers/${created.body.id}`);
    expect(read.body.balance).toBe("8.765432");
    expect((await readWallet(redis(), prefix(), created.body.id)).creditedNano).toBe(10_000_000_000n);
    // Redis loses it all: the rebuild restores the wallet from wallet_entries and the ledger, and the key's record with its customer.
    await redis().del(`${prefix()}:{${created.body.id}}:wallet`, `${prefix()}:key:${hashSecret(key.body.key)}`);
    await rebuildRedis(fixture.control.services);
    expect(await readWallet(redis(), prefix(), created.body.id)).toEqual({ creditedNano: 10_000_000_000n, spentNano: 1_234_567_891n, reservedNano: 0n });
    expect((await keyRecord(key.body.key))?.customer).toMatchObject({ id: created.body.id, prepaid: true });
  });
});

describe("plans and subscriptions", () => {
  vendorAuthChecks(() => fixture, { method: "POST", path: "/api/plans", scope: "plans:write", body: { name: "p", price: "1", limits: [{ window: "5h", requests: 1 }] } });

  it("creates and lists plans; subscribes a customer: its keys carry the plan's windows and models; cancel frees them", async () => {
    const plan = await createPlan({ name: "Pro", price: "20.00", period: "month", limits: [{ window: "5h", requests: 50 }, { window: "week", usd: "10.50" }], models: ["gpt-small"] }, fixture.acme["plans:write"]);
    expect(plan.status).toBe(201);
    expect(planSchema.strict().parse(plan.body)).toEqual({
      id: expect.stringMatching(/^plan_/),
      object: "plan",
      name: "Pro",
      price: "20.000000",
      period: "month",
      limits: [
        { window: "5h", requests: 50, usd: null },
        { window: "week", requests: null, usd: "10.500000" },
      ],
      models: ["gpt-small"],
      status: "active",
      created_at: expect.any(String),
    });
    const list = await fixture.call("GET", "/api/plans", { token: fixture.acme["customers:read"] });
    expect(list.body.data.map((item: { id: string }) => item.id)).toContain(plan.body.id);
    const theirs = await fixture.call("GET", "/api/plans", { token: fixture.globex });
    expect(theirs.body.data.map((item: { id: string }) => item.id)).not.toContain(plan.body.id);

    const customer = await createCustomer({ name: "Subscriber" });
    const key = await fixture.call("POST", "/api/keys", { body: { server_option: "standard", customer_id: customer.body.id } });
    const subscribed = await fixture.call("POST", `/api/customers/${customer.body.id}/subscriptions`, { body: { plan_id: plan.body.id }, token: fixture.acme["plans:write"] });
    expect(subscribed.status).toBe(201);
    expect(subscriptionSchema.strict().parse(subscribed.body)).toMatchObject({ id: expect.stringMatching(/^sub_/), object: "subscription", customer_id: customer.body.id, plan_id: plan.body.id, status: "active", canceled_at: null });
    const start = Date.parse(subscribed.body.current_period_start);
    const end = new Date(start);
    end.setUTCMonth(end.getUTCMonth() + 1);
    expect(Date.parse(subscribed.body.current_period_end) - start).toBeGreaterThanOrEqual(28 * 86_400_000);
    expect((await keyRecord(key.body.key))?.customer?.plan).toEqual({
      subscriptionId: subscribed.body.id,
      models: ["gpt-small"],
      windows: [
        { window: "5h", requests: 50, usdNano: null },
        { window: "week", requests: null, usdNano: "10500000000" },
      ],
    });
    expect((await fixture.call("GET", `/api/customers/${customer.body.id}`)).body.subscription).toMatchObject({ id: subscribed.body.id, status: "active" });

    // A second subscription replaces the first.
    const basic = await createPlan({ name: "Basic", price: "5", limits: [{ window: "day", requests: 10 }] });
    const replaced = await fixture.call("POST", `/api/customers/${customer.body.id}/subscriptions`, { body: { plan_id: basic.body.id } });
    expect(replaced.status).toBe(201);
    expect((await prisma().subscription.findUniqueOrThrow({ where: { id: subscribed.body.id } })).status).toBe("canceled");
    expect((await keyRecord(key.body.key))?.customer?.plan?.subscriptionId).toBe(replaced.body.id);

    const canceled = await fixture.call("DELETE", `/api/customers/${customer.body.id}/subscriptions/${replaced.body.id}`, { token: fixture.acme["plans:write"] });
    expect(canceled.status).toBe(200);
    expect(canceled.body).toMatchObject({ id: replaced.body.id, status: "canceled", canceled_at: expect.any(String) });
    expect((await keyRecord(key.body.key))?.customer?.plan).toBeNull();
    // Canceling again answers the same.
    expect((await fixture.call("DELETE", `/api/customers/${customer.body.id}/subscriptions/${replaced.body.id}`)).body.status).toBe("canceled");
    const actions = (await prisma().auditEntry.findMany({ where: { keyId: { in: [plan.body.id, subscribed.body.id, replaced.body.id] } } })).map((entry) => entry.action).sort();
    expect(actions).toEqual(["plan.created", "subscription.canceled", "subscription.canceled", "subscription.created", "subscription.created"].slice(0, actions.length));
    expect(actions).toContain("plan.created");
    expect(actions).toContain("subscription.canceled");
  });

  it.each([
    [{ price: "1", limits: [{ window: "5h", requests: 1 }] }, "name"],
    [{ name: "p", limits: [{ window: "5h", requests: 1 }] }, "price"],
    [{ name: "p", price: "-1", limits: [{ window: "5h", requests: 1 }] }, "price"],
    [{ name: "p", price: "1.0000001", limits: [{ window: "5h", requests: 1 }] }, "price"],
    [{ name: "p", price: "1", limits: [] }, "limits"],
    [{ name: "p", price: "1", limits: [{ window: "2h", requests: 1 }] }, "limits.0.window"],
    [{ name: "p", price: "1", limits: [{ window: "5h" }] }, "limits.0.requests"],
    [{ name: "p", price: "1", limits: [{ window: "5h", requests: 0 }] }, "limits.0.requests"],
    [{ name: "p", price: "1", limits: [{ window: "5h", requests: 1.5 }] }, "limits.0.requests"],
    [{ name: "p", price: "1", limits: [{ window: "day", usd: "1e3" }] }, "limits.0.usd"],
    [{ name: "p", price: "1", limits: [{ window: "day", usd: "0" }] }, "limits.0.usd"],
    [{ name: "p", price: "1", limits: [{ window: "day", usd: "2000000000" }] }, "limits.0.usd"],
    [{ name: "p", price: "1", limits: [{ window: "day", requests: 1 }, { window: "day", requests: 2 }] }, "limits.1.window"],
    [{ name: "p", price: "1", period: "year", limits: [{ window: "day", requests: 1 }] }, "period"],
    [{ name: "p", price: "1", limits: [{ window: "day", requests: 1 }], models: ["no-such-model"] }, "models.0"],
    [{ name: "p", price: "1", limits: [{ window: "day", requests: 1 }], extra: true }, "extra"],
  ])("POST /api/plans: 400 naming the field for %j", async (body, param) => {
    const response = await createPlan(body);
    expectError(response, 400, "invalid_body");
    expect(response.body.error.param).toBe(param);
  });

  it("a plan may name any model of the vendor's server options", async () => {
    const response = await createPlan({ name: "p", price: "1", limits: [{ window: "day", requests: 1 }], models: ["claude-large", "gpt-small"] }, fixture.globex);
    expect(response.status).toBe(201);
  });

  it("subscriptions: 404 for another vendor's customer or plan, unknown ids; 400 naming plan_id; 403 without plans:write", async () => {
    const customer = await createCustomer({ name: "Sub errors" });
    const plan = await createPlan({ name: "ok", price: "1", limits: [{ window: "day", requests: 1 }] });
    const theirPlan = await createPlan({ name: "theirs", price: "1", limits: [{ window: "day", requests: 1 }] }, fixture.globex);
    const theirCustomer = await createCustomer({ name: "theirs" }, fixture.globex);
    const subscribe = (customerId: string, body: unknown, token?: string) => fixture.call("POST", `/api/customers/${customerId}/subscriptions`, { body, token });
    const otherPlan = await subscribe(customer.body.id, { plan_id: theirPlan.body.id });
    expectError(otherPlan, 404, "not_found");
    expect(otherPlan.body.error.param).toBe("plan_id");
    expectError(await subscribe(theirCustomer.body.id, { plan_id: plan.body.id }), 404, "not_found");
    expectError(await subscribe(`cus_${"2".repeat(32)}`, { plan_id: plan.body.id }), 404, "not_found");
    const missing = await subscribe(customer.body.id, {});
    expectError(missing, 400, "invalid_body");
    expect(missing.body.error.param).toBe("plan_id");
    expectError(await subscribe(customer.body.id, { plan_id: plan.body.id }, fixture.acme["customers:write"]), 403, "missing_scope");
    expectError(await fixture.call("DELETE", `/api/customers/${customer.body.id}/subscriptions/sub_${"3".repeat(32)}`), 404, "not_found");
    const theirs = await subscribe(theirCustomer.body.id, { plan_id: theirPlan.body.id }, fixture.globex);
    expect(theirs.status).toBe(201);
    expectError(await fixture.call("DELETE", `/api/customers/${theirCustomer.body.id}/subscriptions/${theirs.body.id}`), 404, "not_found");
    expectError(await fixture.call("DELETE", `/api/customers/${customer.body.id}/subscriptions/${theirs.body.id}`), 404, "not_found");
  });
});

describe("GET /api/usage?group_by=customer", () => {
  it("groups the ledger by the keys' customer ('none' for keys without one); totals equal the rows", async () => {
    const response = await fixture.call("GET", "/api/usage?group_by=customer&from=2026-11-19T00:00:00Z&to=2026-11-22T00:00:00Z", { token: fixture.acme["usage:read"] });
    expect(response.status).toBe(200);
    expect(response.body.group_by).toBe("customer");
    const sum = response.body.data.reduce((total: bigint, row: { cost_nano: string }) => total + BigInt(row.cost_nano), 0n);
    expect(BigInt(response.body.totals.cost_nano)).toBe(sum);
    expectError(await fixture.call("GET", "/api/usage?group_by=customers"), 400, "invalid_body");
  });
});
