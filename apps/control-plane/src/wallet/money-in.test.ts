import { randomBytes } from "node:crypto";
import { parseGatewayFile } from "@gateway/config";
import { parseUsdToNano } from "@gateway/contracts";
import { createLogger } from "@gateway/logger";
import { readWallet, redisKeys } from "@gateway/redis-store";
import { createTestDatabase, resolveTestServices, startAppProcess, freePort, type AppProcess, type TestDatabase } from "@gateway/testing";
import Stripe from "stripe";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadControlPlaneConfig } from "../config.ts";
import { applyGatewayFile } from "../config-file/apply-gateway-file.ts";
import { mintKey } from "../keys/key-service.ts";
import { GATEWAY_YAML } from "../routes/vendor-api-fixture.ts";
import { startControlPlane, type RunningControlPlane } from "../server.ts";
import { createVendorToken } from "../vendors/vendor-tokens.ts";
import { runAutoTopUp } from "./auto-top-up.ts";
import { startFakeStripeApi, type FakeStripeApi } from "./fake-stripe-api.ts";
import { createWalletContext } from "./mount-wallet-routes.ts";
import { creditAutoTopUp } from "./stripe-events.ts";

// Money in (contract section 19, issue 38), against Postgres, Redis, the control plane and a real
// proxy process on the one address (/v1/redeem, /webhooks/stripe), Stripe faked locally.
const WEBHOOK_SECRET = `whsec_${randomBytes(16).toString("hex")}`;
const INTERNAL_TOKEN = `internal-${randomBytes(8).toString("hex")}`;
const silent = createLogger({ name: "test", level: "silent" });
const PROXY_MAIN = fileURLToPath(new URL("../../../proxy/src/main.ts", import.meta.url));

let database: TestDatabase;
let stripeApi: FakeStripeApi;
let control: RunningControlPlane;
let unconfigured: RunningControlPlane;
let proxy: AppProcess;
let prefix: string;
let writer: string;
let readOnly: string;
let globex: string;
let customerId: string;
let otherCustomerId: string;
let globexCustomerId: string;
let key: string;
let keyWithoutCustomer: string;
let otherKey: string;

const cus = () => `cus_${randomBytes(16).toString("hex")}`;

async function call(base: string, method: string, path: string, options: { token?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers["content-type"] ??= "application/json";
  const response = await fetch(`${base}${path}`, { method, headers, body: typeof options.body === "string" ? options.body : options.body === undefined ? undefined : JSON.stringify(options.body) });
  const text = await response.text();
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
  return { status: response.status, body: (text ? JSON.parse(text) : null) as any };
}
const api = (method: string, path: string, options: Parameters<typeof call>[3] = {}) => call(proxy.url, method, path, { token: writer, ...options });
const redeem = (apiKey: string, code: unknown) => call(proxy.url, "POST", "/v1/redeem", { token: apiKey, body: { code } });

async function entries(id: string) {
  return control.services.db.prisma.walletEntry.findMany({ where: { customerId: id } });
}
async function creditedNano(id: string) {
  return (await readWallet(control.services.redis, prefix, id)).creditedNano;
}

beforeAll(async () => {
  const services = await resolveTestServices();
  database = await createTestDatabase();
  stripeApi = await startFakeStripeApi();
  prefix = `test-wallet-${randomBytes(6).toString("hex")}`;
  const base = { DATABASE_URL: database.url, REDIS_URL: services.redisUrl, REDIS_PREFIX: prefix, PORT: "0", LOG_LEVEL: "silent", AUTH_FREE_FAILURES: "1000000", INTERNAL_TOKEN, WALLET_CHECK_INTERVAL_MS: "0" };
  control = await startControlPlane(loadControlPlaneConfig({ ...base, STRIPE_SECRET_KEY: "sk_test_fake", STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, STRIPE_API_BASE: stripeApi.url }), silent);
  unconfigured = await startControlPlane(loadControlPlaneConfig(base), silent);
  const { prisma } = control.services.db;
  await applyGatewayFile(prisma, control.services.records, parseGatewayFile(GATEWAY_YAML));
  const token = async (vendor: string, scopes: string[]) => (await createVendorToken(prisma, { vendor, name: "wallet", scopes })).plaintext;
  writer = await token("acme", ["customers:write", "customers:read"]);
  readOnly = await token("acme", ["customers:read"]);
  globex = await token("globex", ["customers:write", "customers:read"]);
  const acme = await prisma.vendor.findUniqueOrThrow({ where: { name: "acme" } });
  const globexVendor = await prisma.vendor.findUniqueOrThrow({ where: { name: "globex" } });
  customerId = cus();
  otherCustomerId = cus();
  globexCustomerId = cus();
  await prisma.customer.createMany({
    data: [
      { id: customerId, vendorId: acme.id, name: "Ada", billing: "prepaid" },
      { id: otherCustomerId, vendorId: acme.id, name: "Grace", billing: "prepaid" },
      { id: globexCustomerId, vendorId: globexVendor.id, name: "Globex's", billing: "prepaid" },
    ],
  });
  // A vendor webhook subscribed to payments: each credited payment queues one payment.succeeded.
  await prisma.webhook.create({ data: { id: `wh_${randomBytes(16).toString("hex")}`, vendorId: acme.id, url: "http://127.0.0.1:9/hook", events: ["payment.succeeded"], secretCiphertext: "unused" } });
  const mint = async (vendorId: string, customer: string | null) => {
    const minted = await mintKey(prisma, control.services.records, { vendorId, serverOption: "standard", name: "wallet", quotaNano: null, expiresAt: null, rpm: null, tpm: null, metadata: {} });
    if (customer) await prisma.apiKey.update({ where: { id: minted.row.id }, data: { customerId: customer } });
    return minted.plaintext;
  };
  key = await mint(acme.id, customerId);
  otherKey = await mint(acme.id, otherCustomerId);
  keyWithoutCustomer = await mint(acme.id, null);
  proxy = await startAppProcess({
    name: "proxy",
    script: PROXY_MAIN,
    port: await freePort(),
    env: { REDIS_URL: services.redisUrl, REDIS_PREFIX: prefix, CONTROL_PLANE_URL: control.url, INTERNAL_TOKEN, LOG_LEVEL: "warn" },
  });
}, 90_000);

afterAll(async () => {
  await proxy?.stop();
  const redis = control?.services.redis;
  const keys = redis ? await redis.keys(`${prefix}:*`).catch(() => []) : [];
  if (keys.length > 0) await redis!.del(...keys).catch(() => {});
  await unconfigured?.close();
  await control?.close();
  await stripeApi?.close();
  await database?.drop();
});

describe("grants: POST /api/customers/{id}/credits", () => {
  it("credits the wallet, audited with the token, and a retried Idempotency-Key credits once", async () => {
    const first = await api("POST", `/api/customers/${customerId}/credits`, { body: { amount: "5.00", reason: "welcome" }, headers: { "idempotency-key": "grant-1" } });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ object: "wallet_entry", customer_id: customerId, kind: "grant", amount: "5.000000", reason: "welcome", balance: "5.000000" });
    const again = await api("POST", `/api/customers/${customerId}/credits`, { body: { amount: "5.00", reason: "welcome" }, headers: { "idempotency-key": "grant-1" } });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect((await entries(customerId)).filter((entry) => entry.kind === "grant")).toHaveLength(1);
    expect(await creditedNano(customerId)).toBe(parseUsdToNano("5"));

    const audit = await api("GET", "/api/audit-log");
    const entry = audit.body.data.find((row: { action: string }) => row.action === "customer.credited");
    const tokenRow = await control.services.db.prisma.vendorToken.findFirstOrThrow({ where: { prefix: writer.slice(0, 7) } });
    expect(entry).toMatchObject({ token_id: tokenRow.id, changes: { customer_id: customerId, wallet_entry_id: first.body.id, amount: "5.000000", reason: "welcome" } });
    expect(entry.request_id).toEqual(expect.any(String));
  });

  it("a credit Redis cannot take is a 503 and nothing is credited (the entry rolls back with it)", async () => {
    const { redis } = control.services;
    const before = (await entries(customerId)).length;
    redis.disconnect();
    try {
      const response = await call(control.url, "POST", `/api/customers/${customerId}/credits`, { token: writer, body: { amount: "3.00" } });
      expect(response.status).toBe(503);
      expect(response.body.error.code).toBe("dependency_unavailable");
    } finally {
      await redis.connect();
    }
    expect(await entries(customerId)).toHaveLength(before);
    expect(await creditedNano(customerId)).toBe(parseUsdToNano("5"));
  });

  it("refuses a bad amount naming it, another vendor's customer as a 404, and a token without customers:write", async () => {
    const bad = await api("POST", `/api/customers/${customerId}/credits`, { body: { amount: "-1" } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ type: "invalid_request_error", param: "amount" });
    expect((await api("POST", `/api/customers/${customerId}/credits`, { body: { amount: "0" } })).body.error.param).toBe("amount");
    expect((await api("POST", `/api/customers/${globexCustomerId}/credits`, { body: { amount: "1" } })).status).toBe(404);
    expect((await api("POST", "/api/customers/cus_unknown/credits", { body: { amount: "1" } })).status).toBe(404);
    const forbidden = await api("POST", `/api/customers/${customerId}/credits`, { token: readOnly, body: { amount: "1" } });
    expect(forbidden.status).toBe(403);
    expect(await creditedNano(globexCustomerId)).toBe(0n);
  });
});

describe("redemption codes", () => {
  let codes: { id: string; code: string; amount: string }[];

  it("mints codes shown once and lists them without plaintext", async () => {
    const created = await api("POST", "/api/redemption-codes", { body: { count: 4, amount: "2.50" } });
    expect(created.status).toBe(201);
    expect(created.body.object).toBe("list");
    codes = created.body.data;
    expect(codes).toHaveLength(4);
    for (const code of codes) expect(code).toMatchObject({ code: expect.stringMatching(/^rc_[0-9A-Za-z]{30,}$/), amount: "2.500000" });
    const listed = await api("GET", "/api/redemption-codes", { token: readOnly });
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((row: { id: string }) => row.id).sort()).toEqual(codes.map((code) => code.id).sort());
    for (const code of codes) expect(JSON.stringify(listed.body)).not.toContain(code.code);
    expect((await api("POST", "/api/redemption-codes", { body: { count: 0, amount: "1" } })).body.error.param).toBe("count");
    expect((await call(proxy.url, "GET", "/api/redemption-codes", { token: globex })).body.data).toEqual([]);
  });

  it("POST /v1/redeem credits the key's customer once; used, unknown, expired and another vendor's codes are code_invalid", async () => {
    const before = await creditedNano(customerId);
    const redeemed = await redeem(key, codes[0]!.code);
    expect(redeemed.status).toBe(200);
    expect(redeemed.body).toEqual({ object: "redemption", amount: "2.500000", balance: "7.500000" });
    expect(await creditedNano(customerId)).toBe(before + parseUsdToNano("2.5"));
    for (const attempt of [await redeem(key, codes[0]!.code), await redeem(otherKey, codes[0]!.code), await redeem(key, "rc_doesnotexist")]) {
      expect(attempt.status).toBe(400);
      expect(attempt.body.error).toMatchObject({ type: "invalid_request_error", code: "code_invalid", param: "code" });
    }
    const { prisma } = control.services.db;
    await prisma.redemptionCode.update({ where: { id: codes[3]!.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await redeem(key, codes[3]!.code)).body.error.code).toBe("code_invalid");
    expect((await redeem(key, 42)).body.error).toMatchObject({ code: "invalid_body", param: "code" });
    expect((await call(proxy.url, "POST", "/v1/redeem", { body: { code: codes[1]!.code } })).status).toBe(401);
  });

  it("/internal/redeem is the proxy's alone: 404 on the gateway's address, 401 without the internal token", async () => {
    const body = { key_id: "key_x", code: codes[1]!.code };
    expect((await call(proxy.url, "POST", "/internal/redeem", { body, headers: { "x-internal-token": INTERNAL_TOKEN } })).status).toBe(404);
    expect((await call(control.url, "POST", "/internal/redeem", { body })).status).toBe(401);
    expect((await call(control.url, "POST", "/internal/redeem", { body, headers: { "x-internal-token": "wrong" } })).status).toBe(401);
  });

  it("a key without a customer is a 400 customer_required and leaves the code unused", async () => {
    const refused = await redeem(keyWithoutCustomer, codes[1]!.code);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ type: "invalid_request_error", code: "customer_required" });
    const row = await control.services.db.prisma.redemptionCode.findUniqueOrThrow({ where: { id: codes[1]!.id } });
    expect(row.redeemedAt).toBeNull();
  });

  it("20 concurrent redemptions of one code by two customers' keys: one credit", async () => {
    const before = (await creditedNano(customerId)) + (await creditedNano(otherCustomerId));
    const results = await Promise.all(Array.from({ length: 20 }, (_, index) => redeem(index % 2 ? key : otherKey, codes[2]!.code)));
    expect(results.filter((result) => result.status === 200)).toHaveLength(1);
    expect(results.filter((result) => result.status === 400 && result.body.error.code === "code_invalid")).toHaveLength(19);
    const rows = await control.services.db.prisma.walletEntry.findMany({ where: { kind: "code", sourceId: codes[2]!.id } });
    expect(rows).toHaveLength(1);
    expect((await creditedNano(customerId)) + (await creditedNano(otherCustomerId))).toBe(before + parseUsdToNano("2.5"));
  });
});

describe("Stripe Checkout and its webhook", () => {
  let session: { id: string; url: string };

  const completedEvent = (eventId: string, sessionId: string, amountCents: number, customer = customerId) =>
    JSON.stringify({
      id: eventId,
      object: "event",
      type: "checkout.session.completed",
      created: Math.floor(Date.now() / 1000),
      data: {
        object: {
          id: sessionId, object: "checkout.session", mode: "payment", payment_status: "paid", status: "complete",
          amount_total: amountCents, currency: "usd", customer: "cus_stripe_ada", payment_intent: "pi_test_checkout", metadata: { customer_id: customer },
        },
      },
    });
  const sign = (payload: string, secret = WEBHOOK_SECRET) => Stripe.webhooks.generateTestHeaderString({ payload, secret });
  const deliver = (payload: string, signature: string | null) =>
    call(proxy.url, "POST", "/webhooks/stripe", { body: payload, headers: { "content-type": "application/json", ...(signature === null ? {} : { "stripe-signature": signature }) } });

  it("creates a Checkout Session in payment mode through the SDK, with a pending payment", async () => {
    const created = await api("POST", `/api/customers/${customerId}/checkout-sessions`, {
      body: { amount: "20.00", success_url: "https://vendor.example/paid", cancel_url: "https://vendor.example/cancel" },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ id: expect.stringMatching(/^cs_test_/), url: expect.stringMatching(/^https:\/\/checkout\.stripe\.test\//), amount: "20.000000" });
    session = created.body;
    const sent = stripeApi.requests.find((request) => request.path === "/v1/checkout/sessions")!;
    expect(sent.authorization).toBe("Bearer sk_test_fake");
    expect(Object.fromEntries(sent.params)).toMatchObject({
      mode: "payment",
      "line_items[0][price_data][unit_amount]": "2000",
      "line_items[0][price_data][currency]": "usd",
      "metadata[customer_id]": customerId,
      "payment_intent_data[setup_future_usage]": "off_session",
    });
    const payment = await control.services.db.prisma.payment.findUniqueOrThrow({ where: { stripeSessionId: session.id } });
    expect(payment).toMatchObject({ customerId, status: "pending", amountNano: parseUsdToNano("20") });
    const cents = await api("POST", `/api/customers/${customerId}/checkout-sessions`, { body: { amount: "20.001", success_url: "https://a.example", cancel_url: "https://a.example" } });
    expect(cents.body.error.param).toBe("amount");
  });

  it("without STRIPE_SECRET_KEY checkout is a 503 saying payments are not configured", async () => {
    const response = await call(unconfigured.url, "POST", `/api/customers/${customerId}/checkout-sessions`, {
      token: writer,
      body: { amount: "20.00", success_url: "https://vendor.example/paid", cancel_url: "https://vendor.example/cancel" },
    });
    expect(response.status).toBe(503);
    expect(response.body.error).toMatchObject({ code: "payments_not_configured", message: expect.stringContaining("not configured") });
  });

  it("unsigned, badly signed and altered webhooks are 400 and credit nothing", async () => {
    const before = await creditedNano(customerId);
    const payload = completedEvent("evt_forged", session.id, 2000);
    for (const response of [
      await deliver(payload, null),
      await deliver(payload, sign(payload, "whsec_wrong")),
      await deliver(payload.replace("2000", "9000"), sign(payload)),
      await deliver(payload, "t=1,v1=deadbeef"),
    ]) {
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({ type: "invalid_request_error", code: "invalid_signature" });
    }
    expect(await creditedNano(customerId)).toBe(before);
    expect(await control.services.db.prisma.walletEntry.count({ where: { kind: "payment" } })).toBe(0);
  });

  it("checkout.session.completed through the proxy credits once under 5 concurrent retries and a replay", async () => {
    const before = await creditedNano(customerId);
    const payload = completedEvent("evt_paid_1", session.id, 2000);
    const results = await Promise.all(Array.from({ length: 5 }, () => deliver(payload, sign(payload))));
    for (const result of results) expect(result.status).toBe(200);
    expect(results.filter((result) => result.body.outcome === "credited")).toHaveLength(1);
    const replay = await deliver(payload, sign(payload));
    expect(replay).toMatchObject({ status: 200, body: { received: true, outcome: "duplicate" } });
    // Another event about the same session (Stripe resends under a new id only in theory): still one credit.
    const other = completedEvent("evt_paid_2", session.id, 2000);
    expect((await deliver(other, sign(other))).body.outcome).toBe("duplicate");
    expect(await creditedNano(customerId)).toBe(before + parseUsdToNano("20"));
    const { prisma } = control.services.db;
    expect(await prisma.walletEntry.findMany({ where: { kind: "payment" } })).toEqual([expect.objectContaining({ sourceId: "evt_paid_1", amountNano: parseUsdToNano("20"), customerId })]);
    expect(await prisma.payment.findUniqueOrThrow({ where: { stripeSessionId: session.id } })).toMatchObject({ status: "succeeded", stripeEventId: "evt_paid_1" });
    expect(await prisma.webhookDelivery.count({ where: { event: "payment.succeeded" } })).toBe(1);
    // The card is kept for auto top-up.
    expect(await prisma.customer.findUniqueOrThrow({ where: { id: customerId } })).toMatchObject({ stripeCustomerId: "cus_stripe_ada", stripePaymentMethodId: "pm_test_card_visa" });
  });
});

describe("auto top-up", () => {
  it("below the threshold, charges the saved card off-session once and credits it once per PaymentIntent", async () => {
    const set = await api("POST", `/api/customers/${customerId}/auto-top-up`, { body: { below: "50.00", amount: "25.00" } });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ object: "auto_top_up", customer_id: customerId, enabled: true, below: "50.000000", amount: "25.000000", payment_method_saved: true });
    const context = createWalletContext(control.services);
    const before = await creditedNano(customerId);
    // The control plane's wallet check (every WALLET_CHECK_INTERVAL_MS; run by hand here) finds it below: low, then topped up.
    expect(await control.walletSweep.runOnce()).toMatchObject({ toppedUp: 1 });
    const charge = stripeApi.requests.find((request) => request.path === "/v1/payment_intents" && request.method === "POST")!;
    expect(Object.fromEntries(charge.params)).toMatchObject({ amount: "2500", currency: "usd", customer: "cus_stripe_ada", payment_method: "pm_test_card_visa", off_session: "true", confirm: "true" });
    expect(await creditedNano(customerId)).toBe(before + parseUsdToNano("25"));
    // The balance is above the threshold now: nothing more.
    expect(await runAutoTopUp(context, customerId)).toBe("not_needed");
    const [entry] = await control.services.db.prisma.walletEntry.findMany({ where: { customerId, kind: "auto_top_up" } });
    // Its payment_intent.succeeded webhook credits nothing more.
    const payload = JSON.stringify({
      id: "evt_pi_1", object: "event", type: "payment_intent.succeeded",
      data: { object: { id: entry!.sourceId, object: "payment_intent", status: "succeeded", amount: 2500, amount_received: 2500, metadata: { customer_id: customerId, kind: "auto_top_up" } } },
    });
    const delivered = await call(proxy.url, "POST", "/webhooks/stripe", { body: payload, headers: { "stripe-signature": Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }) } });
    expect(delivered.body).toEqual({ received: true, outcome: "duplicate" });
    expect(await control.services.db.prisma.webhookDelivery.count({ where: { event: "payment.succeeded" } })).toBe(2);
    expect(await creditedNano(customerId)).toBe(before + parseUsdToNano("25"));
    // The charge is in the customer's payments once, beside the checkout payment; its event names that payment.
    const payments = await api("GET", `/api/customers/${customerId}/payments`);
    expect(payments.status).toBe(200);
    const topUps = payments.body.data.filter((payment: { kind: string }) => payment.kind === "auto_top_up");
    expect(topUps).toEqual([{ id: expect.stringMatching(/^pay_/), object: "payment", customer_id: customerId, kind: "auto_top_up", amount: "25.000000", status: "succeeded", stripe_id: entry!.sourceId, created_at: expect.any(String), completed_at: expect.any(String) }]);
    expect(payments.body.data.filter((payment: { kind: string }) => payment.kind === "checkout")).toEqual([expect.objectContaining({ amount: "20.000000", status: "succeeded" })]);
    const [event] = await control.services.db.prisma.webhookDelivery.findMany({ where: { event: "payment.succeeded", body: { contains: "auto_top_up" } } });
    expect(JSON.parse(event!.body).data).toMatchObject({ payment_id: topUps[0].id, amount: "25.000000", kind: "auto_top_up" });
  });

  it("a PaymentIntent credited by 6 concurrent callers (the charge and its retried webhook) is one payment and one credit", async () => {
    const context = createWalletContext(control.services);
    const before = await creditedNano(customerId);
    const intentId = `pi_test_race_${randomBytes(6).toString("hex")}`;
    const results = await Promise.all(Array.from({ length: 6 }, () => creditAutoTopUp(context, customerId, intentId, parseUsdToNano("7.50"))));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await creditedNano(customerId)).toBe(before + parseUsdToNano("7.50"));
    const { prisma } = control.services.db;
    expect(await prisma.payment.findMany({ where: { stripeSessionId: intentId } })).toEqual([expect.objectContaining({ status: "succeeded", amountNano: parseUsdToNano("7.50") })]);
    expect(await prisma.walletEntry.count({ where: { sourceId: intentId } })).toBe(1);
  });

  it("a charge still processing is listed pending; its payment_intent.succeeded credits it once and marks it succeeded; a declined one is listed failed", async () => {
    const context = createWalletContext(control.services);
    const { prisma } = control.services.db;
    expect((await api("POST", `/api/customers/${customerId}/auto-top-up`, { body: { below: "1000.00", amount: "10.00" } })).status).toBe(200);
    const before = await creditedNano(customerId);
    stripeApi.paymentIntentStatus = "processing";
    try {
      expect(await runAutoTopUp(context, customerId)).toBe("pending");
      expect(await creditedNano(customerId)).toBe(before);
      const pending = (await api("GET", `/api/customers/${customerId}/payments`)).body.data[0];
      expect(pending).toMatchObject({ kind: "auto_top_up", status: "pending", amount: "10.000000", completed_at: null, stripe_id: expect.stringMatching(/^pi_/) });
      const payload = JSON.stringify({
        id: `evt_pi_${randomBytes(6).toString("hex")}`, object: "event", type: "payment_intent.succeeded",
        data: { object: { id: pending.stripe_id, object: "payment_intent", status: "succeeded", amount: 1000, amount_received: 1000, metadata: { customer_id: customerId, kind: "auto_top_up" } } },
      });
      const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });
      const delivered = await Promise.all([0, 1, 2].map(() => call(proxy.url, "POST", "/webhooks/stripe", { body: payload, headers: { "stripe-signature": signature } })));
      expect(delivered.map((reply) => reply.body.outcome).sort()).toEqual(["credited", "duplicate", "duplicate"]);
      expect(await creditedNano(customerId)).toBe(before + parseUsdToNano("10"));
      expect(await prisma.payment.findMany({ where: { stripeSessionId: pending.stripe_id } })).toEqual([expect.objectContaining({ id: pending.id, status: "succeeded", completedAt: expect.any(Date) })]);
      // Declined: nothing credited, the attempt listed as failed.
      stripeApi.paymentIntentStatus = "requires_payment_method";
      expect(await runAutoTopUp(context, customerId)).toBe("failed");
      expect((await api("GET", `/api/customers/${customerId}/payments`)).body.data[0]).toMatchObject({ kind: "auto_top_up", status: "failed", amount: "10.000000" });
      expect(await creditedNano(customerId)).toBe(before + parseUsdToNano("10"));
    } finally {
      stripeApi.paymentIntentStatus = "succeeded";
      await api("POST", `/api/customers/${customerId}/auto-top-up`, { body: { below: "50.00", amount: "25.00" } });
    }
  });

  it("without a saved card nothing is charged", async () => {
    await api("POST", `/api/customers/${otherCustomerId}/auto-top-up`, { body: { below: "1000.00", amount: "10.00" } });
    const context = createWalletContext(control.services);
    expect(await runAutoTopUp(context, otherCustomerId)).toBe("not_configured");
  });
});

describe("customer.balance_low", () => {
  it("fires once per crossing of the low mark (20 % of the credits without auto top-up)", async () => {
    const { prisma } = control.services.db;
    const { id: vendorId } = await prisma.vendor.findUniqueOrThrow({ where: { name: "acme" } });
    const low = cus();
    await prisma.customer.create({ data: { id: low, vendorId, name: "Low", billing: "prepaid" } });
    await prisma.webhook.create({ data: { id: `wh_${randomBytes(16).toString("hex")}`, vendorId, url: "http://127.0.0.1:9/low", events: ["customer.balance_low"], secretCiphertext: "unused" } });
    const deliveries = () => prisma.webhookDelivery.count({ where: { event: "customer.balance_low", body: { contains: low } } });
    // Spend as admissions book it in the wallet's counters (the proxies' limiter does this).
    const spend = (usd: string) => control.services.redis.hincrby(redisKeys(prefix).wallet(low), "spent", parseUsdToNano(usd).toString());
    await api("POST", `/api/customers/${low}/credits`, { body: { amount: "10.00" } });
    await control.walletSweep.runOnce();
    expect(await deliveries()).toBe(0);
    await spend("9.00");
    await control.walletSweep.runOnce();
    await control.walletSweep.runOnce();
    expect(await deliveries()).toBe(1);
    const [delivery] = await prisma.webhookDelivery.findMany({ where: { event: "customer.balance_low", body: { contains: low } } });
    expect(JSON.parse(delivery!.body)).toMatchObject({ type: "customer.balance_low", data: { customer_id: low, balance: "1.000000", threshold: "2.000000" } });
    // Refilled above the mark, then down again: a new crossing.
    await api("POST", `/api/customers/${low}/credits`, { body: { amount: "10.00" } });
    await control.walletSweep.runOnce();
    expect(await deliveries()).toBe(1);
    await spend("8.00");
    await control.walletSweep.runOnce();
    expect(await deliveries()).toBe(2);
  });
});

describe("the wallet adds up", () => {
  it("balance == grants + payments + codes + auto top-ups == the sum of the wallet entries, to the nano-dollar", async () => {
    const { prisma } = control.services.db;
    for (const id of [customerId, otherCustomerId, globexCustomerId]) {
      const sum = (await entries(id)).reduce((total, entry) => total + entry.amountNano, 0n);
      expect(await creditedNano(id)).toBe(sum);
    }
    const kinds = Object.fromEntries((await prisma.walletEntry.groupBy({ by: ["kind"], where: { customerId }, _sum: { amountNano: true } })).map((row) => [row.kind, row._sum.amountNano]));
    expect(kinds).toEqual({ grant: parseUsdToNano("5"), code: expect.any(BigInt), payment: parseUsdToNano("20"), auto_top_up: parseUsdToNano("42.5") });
    // The succeeded payments are exactly the payment and auto top-up credits.
    const paid = (await prisma.payment.findMany({ where: { customerId, status: "succeeded" } })).reduce((sum, payment) => sum + payment.amountNano, 0n);
    expect(paid).toBe(kinds.payment! + kinds.auto_top_up!);
    const grant = await api("POST", `/api/customers/${customerId}/credits`, { body: { amount: "0.000001", reason: "one nano-step" } });
    const total = (await entries(customerId)).reduce((sum, entry) => sum + entry.amountNano, 0n);
    expect(parseUsdToNano(grant.body.balance)).toBe(total);
    // The customer object's balance (from Postgres) says the same.
    expect((await api("GET", `/api/customers/${customerId}`)).body).toMatchObject({ id: customerId, balance: grant.body.balance });
    // The wallet's entries through the API, two a page, add up to the same.
    let listed = 0n;
    let count = 0;
    for (let cursor: string | null = null, first = true; first || cursor; first = false) {
      const page = await api("GET", `/api/customers/${customerId}/wallet/entries?limit=2${cursor ? `&cursor=${cursor}` : ""}`, { token: readOnly });
      expect(page.status).toBe(200);
      for (const item of page.body.data) listed += parseUsdToNano(item.amount);
      count += page.body.data.length;
      cursor = page.body.next_cursor;
    }
    expect(count).toBe((await entries(customerId)).length);
    expect(listed).toBe(total);
    // Another vendor's customer is a 404, a bad cursor a 400 naming it; customers:read is needed.
    expect((await api("GET", `/api/customers/${customerId}/wallet/entries`, { token: globex })).status).toBe(404);
    expect((await api("GET", `/api/customers/${customerId}/payments`, { token: globex })).status).toBe(404);
    expect((await api("GET", `/api/customers/${customerId}/wallet/entries?cursor=bm9wZQ`)).body.error).toMatchObject({ code: "invalid_body", param: "cursor" });
  });
});
