// Contract section 19 against the real stack (Postgres, Redis, the billing worker, three proxy
// processes): a customer's budget over its keys, a prepaid wallet to the nano-dollar, a plan's
// rolling windows and models, and a disabled customer, each replica-exact.
import { formatUsd } from "@gateway/contracts";
import { createVendorToken } from "@gateway/control-plane";
import { addWalletCredit, readWallet } from "@gateway/redis-store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { envelopeOf, requestBody, send, shapeHeaders, type Reply } from "./hostile-requests.ts";
import { PRICES, startHostileStack, type HostileStack } from "./hostile-stack.ts";

let stack: HostileStack;
let token: string;
beforeAll(async () => {
  stack = await startHostileStack({ replicas: 3 });
  const { prisma } = stack.controlPlane.services.db;
  token = (await createVendorToken(prisma, { vendor: "hostile-vendor", name: "customers", scopes: ["keys:create", "keys:read", "keys:update", "usage:read", "customers:read", "customers:write", "plans:write"] })).plaintext;
}, 90_000);
afterAll(async () => stack?.close());

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${stack.controlPlane.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

async function customerKeys(customer: unknown, count: number): Promise<{ customerId: string; keys: { id: string; key: string }[] }> {
  const created = await api("POST", "/api/customers", customer);
  expect(created.status).toBe(201);
  const keys = [];
  for (let index = 0; index < count; index += 1) {
    const minted = await api("POST", "/api/keys", { server_option: "hostile", customer_id: created.body.id });
    expect(minted.status).toBe(201);
    keys.push({ id: minted.body.id as string, key: minted.body.key as string });
  }
  return { customerId: created.body.id, keys };
}

/** A chat request of gpt-h with `maxTokens` as its output bound and `words` words of answer, on replica `index % 3`. */
function chat(index: number, key: string, model = "gpt-h", maxTokens = 50, words = 20): Promise<Reply> {
  const replica = stack.replicas[index % stack.replicas.length]!;
  return send(replica.url, "/v1/chat/completions", shapeHeaders("chat", key), requestBody("chat", model, `customer ${index} #sim:chunks=${words}`, false, { max_tokens: String(maxTokens) }));
}

async function ledgerOf(keys: { id: string }[], replies: Reply[]) {
  const admitted = replies.filter((reply) => reply.status === 200).map((reply) => String(reply.headers["x-request-id"]));
  const deadline = Date.now() + 30_000;
  let rows = (await Promise.all(keys.map((key) => stack.ledger(key.id)))).flat();
  let have = new Set(rows.map((row) => row.requestId));
  while (admitted.some((id) => !have.has(id)) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    rows = (await Promise.all(keys.map((key) => stack.ledger(key.id)))).flat();
    have = new Set(rows.map((row) => row.requestId));
  }
  expect(admitted.filter((id) => !have.has(id))).toEqual([]);
  return rows;
}

describe("a customer's budget over its keys", () => {
  it("holds across three keys on three replicas under concurrent requests; refusals are 429 budget_exceeded", async () => {
    // About 0.00054 USD reserved a request (50 output tokens at 10 USD/M and the input estimate): a few fit.
    const budgetNano = 3_000_000n;
    const { keys } = await customerKeys({ name: "budgeted", budget: { limit: formatUsd(budgetNano), period: "day" } }, 3);
    const replies = await Promise.all(Array.from({ length: 45 }, (_, index) => chat(index, keys[index % 3]!.key)));
    const statuses = replies.map((reply) => reply.status);
    expect(statuses.every((status) => status === 200 || status === 429)).toBe(true);
    const refused = replies.filter((reply) => reply.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    for (const reply of refused) expect(envelopeOf(reply)).toMatchObject({ type: "insufficient_quota", code: "budget_exceeded" });
    const rows = await ledgerOf(keys, replies);
    const spent = rows.reduce((sum, row) => sum + row.costNano, 0n);
    // Never above the budget but for the input estimate's error (a few tokens a request at 2 USD/M).
    expect(spent).toBeLessThanOrEqual(budgetNano + BigInt(rows.length) * 20n * BigInt(PRICES["gpt-h"].input * 1000));
    expect(spent).toBeGreaterThan(0n);
  }, 60_000);
});

describe("a prepaid customer's wallet", () => {
  it("balance == credits - ledger spend to the nano-dollar after 200 concurrent requests on three replicas; at zero 429 balance_exhausted", async () => {
    const { customerId, keys } = await customerKeys({ name: "prepaid", billing: "prepaid" }, 4);
    const empty = await chat(0, keys[0]!.key);
    expect(empty.status).toBe(429);
    expect(envelopeOf(empty)).toMatchObject({ type: "insufficient_quota", code: "balance_exhausted" });
    // Room for fewer than the 200 (each reserves about 0.00054 USD and costs some 0.00025).
    const creditNano = 30_000_000n;
    const { prisma } = stack.controlPlane.services.db;
    await prisma.walletEntry.create({ data: { id: `we_${crypto.randomUUID().replaceAll("-", "")}`, customerId, amountNano: creditNano, kind: "grant" } });
    await addWalletCredit(stack.controlPlane.services.redis, stack.prefix, customerId, creditNano);
    const replies = await Promise.all(Array.from({ length: 200 }, (_, index) => chat(index, keys[index % 4]!.key, "gpt-h", 50, 5 + (index % 40))));
    expect(replies.every((reply) => reply.status === 200 || reply.status === 429)).toBe(true);
    const refused = replies.filter((candidate) => candidate.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.length).toBeLessThan(200);
    for (const reply of refused) expect(envelopeOf(reply)?.code).toBe("balance_exhausted");
    const rows = await ledgerOf(keys, replies);
    const spent = rows.reduce((sum, row) => sum + row.costNano, 0n);
    let wallet = await readWallet(stack.controlPlane.services.redis, stack.prefix, customerId);
    for (let wait = 0; wait < 50 && wallet.reservedNano !== 0n; wait += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      wallet = await readWallet(stack.controlPlane.services.redis, stack.prefix, customerId);
    }
    expect(wallet).toEqual({ creditedNano: creditNano, spentNano: spent, reservedNano: 0n });
    expect(spent).toBeLessThanOrEqual(creditNano);
    // The vendor API's balance is the same, from Postgres.
    const read = await api("GET", `/api/customers/${customerId}`);
    expect(read.body.balance).toBe(formatUsd(creditNano - spent));
  }, 60_000);
});

describe("a plan's windows and models", () => {
  it("a full 5-hour window is 429 plan_limit_exceeded with retry-after until it frees; the next window admits again; other models are 403", async () => {
    const plan = await api("POST", "/api/plans", { name: "two a window", price: "1.00", limits: [{ window: "5h", requests: 2 }], models: ["gpt-h"] });
    expect(plan.status).toBe(201);
    const { customerId, keys } = await customerKeys({ name: "subscriber" }, 2);
    const subscription = await api("POST", `/api/customers/${customerId}/subscriptions`, { plan_id: plan.body.id });
    expect(subscription.status).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await chat(0, keys[0]!.key)).status).toBe(200);
    expect((await chat(1, keys[1]!.key)).status).toBe(200);
    const full = await chat(2, keys[0]!.key);
    expect(full.status).toBe(429);
    expect(envelopeOf(full)).toMatchObject({ type: "rate_limit_error", code: "plan_limit_exceeded" });
    const retryAfter = Number(full.headers["retry-after"]);
    expect(retryAfter).toBeGreaterThan(5 * 3600 - 60);
    expect(retryAfter).toBeLessThanOrEqual(5 * 3600);
    const otherModel = await chat(3, keys[1]!.key, "claude-h");
    expect(otherModel.status).toBe(403);
    expect(envelopeOf(otherModel)?.code).toBe("model_not_allowed");
    // Five hours pass for the window (its start moved back): the next request opens a new one.
    const windowKey = `${stack.prefix}:{${customerId}}:plan:${subscription.body.id}:0`;
    const start = Number(await stack.controlPlane.services.redis.hget(windowKey, "start"));
    await stack.controlPlane.services.redis.hset(windowKey, "start", String(start - 5 * 3600_000));
    expect((await chat(4, keys[1]!.key)).status).toBe(200);
    expect((await chat(5, keys[0]!.key)).status).toBe(200);
    expect((await chat(6, keys[1]!.key)).status).toBe(429);
    // Canceled: the keys are free of the plan within a second.
    expect((await api("DELETE", `/api/customers/${customerId}/subscriptions/${subscription.body.id}`)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await chat(7, keys[0]!.key)).status).toBe(200);
    expect((await chat(8, keys[0]!.key, "claude-h")).status).toBe(200);
  });
});

describe("a disabled customer", () => {
  it("its keys get 401 key_disabled on every replica within a second, and work again once active", async () => {
    const { customerId, keys } = await customerKeys({ name: "pausable" }, 2);
    for (let index = 0; index < 3; index += 1) expect((await chat(index, keys[index % 2]!.key)).status).toBe(200);
    expect((await api("PATCH", `/api/customers/${customerId}`, { status: "disabled" })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    for (let index = 0; index < 6; index += 1) {
      const reply = await chat(index, keys[index % 2]!.key);
      expect(reply.status).toBe(401);
      expect(envelopeOf(reply)).toMatchObject({ type: "authentication_error", code: "key_disabled" });
    }
    expect((await api("PATCH", `/api/customers/${customerId}`, { status: "active" })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    for (let index = 0; index < 3; index += 1) expect((await chat(index, keys[index % 2]!.key)).status).toBe(200);
  });
});
