// Issue 38's "Done when" (contract section 19): wallet balance == grants + payments + codes - plan
// charges - ledger spend, to the nano-dollar, after 200 concurrent requests and 20 concurrent redemptions, against
// the real stack (Postgres, Redis, the billing worker, three proxy processes, Stripe faked locally).
// A prepaid customer with two keys gets a grant and a card payment (Checkout through the official
// SDK against the fake Stripe API, credited by the signed webhook); then, all at once: 200 chat
// requests over the three replicas and both keys, 20 redemptions of 20 distinct codes, 5 more
// attempts at used codes, replays of the payment's webhook, and the renewal of the customer's plan
// (its price charged, or the subscription lapsed if the wallet is short). The wallet is sized to run short:
// the requests it cannot hold are 429 balance_exhausted and spend never passes the credits.
import { randomBytes } from "node:crypto";
import { formatUsd, parseUsdToNano } from "@gateway/contracts";
import { createVendorToken } from "@gateway/control-plane";
import { readWallet } from "@gateway/redis-store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// The control plane's own test helpers: the fake Stripe API and the SDK's webhook signing (the
// proxy has no `stripe` dependency of its own).
import { startFakeStripeApi, type FakeStripeApi } from "../../control-plane/src/wallet/fake-stripe-api.ts";
import { stripeWebhooks } from "../../control-plane/src/wallet/stripe-client.ts";
import { SubscriptionRenewal } from "../../control-plane/src/customers/subscription-renewal.ts";
import { customerStores } from "../../control-plane/src/routes/api-customers.ts";
import { envelopeOf, requestBody, send, shapeHeaders, type Reply } from "./hostile-requests.ts";
import { startHostileStack, type HostileStack } from "./hostile-stack.ts";

const WEBHOOK_SECRET = `whsec_${randomBytes(16).toString("hex")}`;

let stack: HostileStack;
let stripeApi: FakeStripeApi;
let token: string;

beforeAll(async () => {
  stripeApi = await startFakeStripeApi();
  stack = await startHostileStack({
    replicas: 3,
    controlPlaneEnv: { STRIPE_SECRET_KEY: "sk_test_fake", STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, STRIPE_API_BASE: stripeApi.url, WALLET_CHECK_INTERVAL_MS: "0" },
  });
  const { prisma } = stack.controlPlane.services.db;
  token = (await createVendorToken(prisma, { vendor: "hostile-vendor", name: "wallet", scopes: ["keys:create", "keys:read", "customers:read", "customers:write", "plans:write"] })).plaintext;
}, 90_000);
afterAll(async () => {
  await stack?.close();
  await stripeApi?.close();
});

async function call(base: string, method: string, path: string, options: { auth?: string; body?: string; headers?: Record<string, string> } = {}): Promise<{ status: number; body: any }> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { ...(options.auth ? { authorization: `Bearer ${options.auth}` } : {}), "content-type": "application/json", ...options.headers },
    body: options.body,
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: kept as text for the failure message
  }
  return { status: response.status, body };
}
const api = (method: string, path: string, body?: unknown) => call(stack.controlPlane.url, method, path, { auth: token, body: body === undefined ? undefined : JSON.stringify(body) });
const replicaUrl = (index: number) => stack.replicas[index % stack.replicas.length]!.url;
const redeem = (index: number, key: string, code: string) => call(replicaUrl(index), "POST", "/v1/redeem", { auth: key, body: JSON.stringify({ code }) });
/** A Stripe delivery on the gateway's one address (a proxy relays /webhooks/* byte for byte). */
const deliver = (index: number, payload: string, signature: string) => call(replicaUrl(index), "POST", "/webhooks/stripe", { body: payload, headers: { "stripe-signature": signature } });
const sign = (payload: string) => stripeWebhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });

/** A chat request held in flight ~300 ms, reserving its 1000-token output bound (about 0.01 USD) against the wallet. */
function chat(index: number, key: string): Promise<Reply> {
  return send(replicaUrl(index), "/v1/chat/completions", shapeHeaders("chat", key), requestBody("chat", "gpt-h", `wallet ${index} #sim:chunks=${5 + (index % 40)} #sim:latency_ms=300`, false, { max_tokens: "1000" }));
}

describe("a prepaid wallet under concurrent spend, redemptions and payment replays", () => {
  it("balance == grants + payments + codes - plan charges - ledger spend to the nano-dollar; Redis agrees; nothing admitted beyond the balance", async () => {
    const { prisma } = stack.controlPlane.services.db;
    const { redis } = stack.controlPlane.services;

    // The customer, its two keys.
    const created = await api("POST", "/api/customers", { name: "wallet under load", billing: "prepaid" });
    expect(created.status).toBe(201);
    const customerId = created.body.id as string;
    const keys: { id: string; key: string }[] = [];
    for (let index = 0; index < 2; index += 1) {
      const minted = await api("POST", "/api/keys", { server_option: "hostile", customer_id: customerId });
      expect(minted.status).toBe(201);
      keys.push({ id: minted.body.id, key: minted.body.key });
    }
    expect(envelopeOf(await chat(0, keys[0]!.key))).toMatchObject({ type: "insufficient_quota", code: "balance_exhausted" });

    // A grant.
    const grant = await api("POST", `/api/customers/${customerId}/credits`, { amount: "0.050000", reason: "welcome" });
    expect(grant.status).toBe(201);

    // A card payment: Checkout through the SDK (the fake Stripe API), credited by the signed webhook.
    const checkout = await api("POST", `/api/customers/${customerId}/checkout-sessions`, { amount: "0.50", success_url: "https://vendor.example/paid", cancel_url: "https://vendor.example/cancel" });
    expect(checkout.status).toBe(201);
    const sent = stripeApi.requests.find((request) => request.path === "/v1/checkout/sessions" && request.params.get("metadata[customer_id]") === customerId);
    expect(sent?.params.get("line_items[0][price_data][unit_amount]")).toBe("50");
    const eventId = `evt_${randomBytes(12).toString("hex")}`;
    const payload = JSON.stringify({
      id: eventId,
      object: "event",
      type: "checkout.session.completed",
      created: Math.floor(Date.now() / 1000),
      data: {
        object: {
          id: checkout.body.id, object: "checkout.session", mode: "payment", payment_status: "paid", status: "complete",
          amount_total: 50, currency: "usd", customer: null, payment_intent: null, metadata: { customer_id: customerId },
        },
      },
    });
    const firstSignature = sign(payload);
    const paid = await deliver(0, payload, firstSignature);
    expect(paid).toMatchObject({ status: 200, body: { received: true, outcome: "credited" } });

    // 21 codes of 0.01 USD: one used now, 20 redeemed in the burst.
    const minted = await api("POST", "/api/redemption-codes", { count: 21, amount: "0.01" });
    expect(minted.status).toBe(201);
    const codes = (minted.body.data as { code: string }[]).map((row) => row.code);
    expect((await redeem(0, keys[0]!.key, codes[0]!)).status).toBe(200);

    // A plan of 0.10 USD a day, charged at once; its renewal races the burst below.
    const plan = await api("POST", "/api/plans", { name: "daily", price: "0.10", period: "day", limits: [{ window: "5h", requests: 100000 }] });
    expect(plan.status).toBe(201);
    const subscribed = await api("POST", `/api/customers/${customerId}/subscriptions`, { plan_id: plan.body.id });
    expect(subscribed.status).toBe(201);
    const renewal = new SubscriptionRenewal(
      { prisma, stores: customerStores(stack.controlPlane.services), logger: stack.controlPlane.services.logger },
      0,
      () => Date.parse(subscribed.body.current_period_end),
    );

    // All at once: 200 requests, 20 redemptions of distinct codes, 5 attempts at used codes
    // (2 at the one used before, 3 racing a burst redemption of the same code by the other key),
    // the payment's webhook replayed (the same delivery, and re-signed).
    const requests = Array.from({ length: 200 }, (_, index) => chat(index, keys[index % 2]!.key));
    const redemptions = Array.from({ length: 20 }, (_, index) => redeem(index + 1, keys[index % 2]!.key, codes[index + 1]!));
    const reused = [
      redeem(0, keys[1]!.key, codes[0]!),
      redeem(1, keys[0]!.key, codes[0]!),
      redeem(2, keys[1]!.key, codes[1]!),
      redeem(0, keys[0]!.key, codes[2]!),
      redeem(1, keys[1]!.key, codes[3]!),
    ];
    const replays = [deliver(1, payload, firstSignature), deliver(2, payload, sign(payload))];
    const renewed = new Promise((resolve) => setTimeout(resolve, 150)).then(() => renewal.runOnce());
    const [replies, redeemed, refusedCodes, replayed, renewalReport] = await Promise.all([Promise.all(requests), Promise.all(redemptions), Promise.all(reused), Promise.all(replays), renewed]);
    // The plan renewed (its second day charged) or lapsed for want of balance: either way once.
    expect(renewalReport.renewed + renewalReport.lapsed).toBe(1);

    // Each of the 21 codes credited exactly once: 20 of the 25 burst attempts succeed, 5 are code_invalid.
    const attempts = [...redeemed, ...refusedCodes];
    expect(attempts.filter((attempt) => attempt.status === 200)).toHaveLength(20);
    const invalid = attempts.filter((attempt) => attempt.status !== 200);
    expect(invalid).toHaveLength(5);
    for (const attempt of invalid) expect(attempt).toMatchObject({ status: 400, body: { error: { type: "invalid_request_error", code: "code_invalid" } } });
    expect(refusedCodes.slice(0, 2).map((attempt) => attempt.status)).toEqual([400, 400]);
    // The replayed payment: acknowledged, no second credit.
    for (const replay of replayed) expect(replay).toMatchObject({ status: 200, body: { received: true, outcome: "duplicate" } });

    // Requests: admitted or refused for the balance, nothing else; the wallet ran short.
    const statuses = replies.map((reply) => reply.status);
    expect(statuses.filter((status) => status !== 200 && status !== 429)).toEqual([]);
    const refused = replies.filter((reply) => reply.status === 429);
    for (const reply of refused) expect(envelopeOf(reply)).toMatchObject({ type: "insufficient_quota", code: "balance_exhausted" });
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.length).toBeLessThan(200);

    // Wait for the ledger (every admitted request has its row) and the reservations' release.
    const admitted = replies.filter((reply) => reply.status === 200).map((reply) => String(reply.headers["x-request-id"]));
    const ledgerRows = async () => (await Promise.all(keys.map((key) => stack.ledger(key.id)))).flat();
    let rows = await ledgerRows();
    for (const deadline = Date.now() + 30_000; admitted.some((id) => !rows.some((row) => row.requestId === id)) && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      rows = await ledgerRows();
    }
    const have = new Set(rows.map((row) => row.requestId));
    expect(admitted.filter((id) => !have.has(id))).toEqual([]);
    expect(rows).toHaveLength(admitted.length);
    let wallet = await readWallet(redis, stack.prefix, customerId);
    for (let wait = 0; wait < 100 && wallet.reservedNano !== 0n; wait += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      wallet = await readWallet(redis, stack.prefix, customerId);
    }

    // The books: entries are the grant, one payment, 21 codes and one plan charge per paid day; the ledger's spend is the keys' rows.
    const entries = await prisma.walletEntry.findMany({ where: { customerId } });
    const byKind = (kind: string) => entries.filter((entry) => entry.kind === kind).reduce((sum, entry) => sum + entry.amountNano, 0n);
    const charges = renewalReport.renewed === 1 ? ["plan", "plan"] : ["plan"];
    expect(entries.map((entry) => entry.kind).sort()).toEqual(["code", ...Array(20).fill("code"), "grant", "payment", ...charges].sort());
    expect(byKind("grant")).toBe(parseUsdToNano("0.05"));
    expect(byKind("payment")).toBe(parseUsdToNano("0.50"));
    expect(byKind("code")).toBe(21n * parseUsdToNano("0.01"));
    expect(byKind("plan")).toBe(-BigInt(charges.length) * parseUsdToNano("0.10"));
    const credited = entries.reduce((sum, entry) => sum + entry.amountNano, 0n);
    expect(credited).toBe(byKind("grant") + byKind("payment") + byKind("code") + byKind("plan"));
    expect((await prisma.subscription.findUniqueOrThrow({ where: { id: subscribed.body.id } })).status).toBe(renewalReport.renewed === 1 ? "active" : "canceled");
    const spent = rows.reduce((sum, row) => sum + row.costNano, 0n);
    expect(spent).toBeGreaterThan(0n);

    // Redis, to the nano-dollar: credited == the entries, spent == the ledger, nothing still reserved.
    expect(wallet).toEqual({ creditedNano: credited, spentNano: spent, reservedNano: 0n });
    // Nothing admitted beyond the balance.
    expect(spent).toBeLessThanOrEqual(credited);
    // The vendor API's balance (Postgres: entries - ledger), in its 6 decimals.
    const read = await api("GET", `/api/customers/${customerId}`);
    expect(read.status).toBe(200);
    expect(read.body.balance).toBe(formatUsd(credited - spent));
    // One payment, succeeded by the first delivery's event.
    const payments = await prisma.payment.findMany({ where: { customerId } });
    expect(payments).toEqual([expect.objectContaining({ status: "succeeded", stripeEventId: eventId, amountNano: parseUsdToNano("0.50") })]);
  }, 120_000);
});
