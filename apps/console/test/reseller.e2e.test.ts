// Issue 38's vendor, who was never shown the API, runs a reseller business in the console against
// the whole stack: a webhook to a local receiver (secret once), a customer, a plan with rolling
// windows, the customer subscribed, a key for it (plaintext once), credits granted, a (simulated)
// Stripe payment credited by its signed webhook, redemption codes (plaintexts once, one redeemed
// with the customer's key), the key tried in the playground, its usage and requests, and the
// key.quota_low webhook (its first attempt refused by the receiver) retried, received once and listed
// among the deliveries. Every figure the pages show is
// checked against the vendor API; every page at 1280x800 and 390x844, with no console error and
// no request leaving the gateway's address.
import { createHmac } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openBrowser, signIn, type ConsoleBrowser } from "./support/browser.ts";
import { eventually } from "./support/eventually.ts";
import { startConsoleStack, type ConsoleStack } from "./support/stack.ts";

interface Received {
  type: string;
  id: string;
  verified: boolean;
  data: Record<string, unknown>;
}
interface ApiCustomer {
  id: string;
  balance: string;
  status: string;
}

const ARTIFACTS = fileURLToPath(new URL("../test-artifacts/", import.meta.url));
const SCREENS = [
  { name: "laptop", width: 1280, height: 800 },
  { name: "phone", width: 390, height: 844 },
];

let stack: ConsoleStack;
let browser: ConsoleBrowser;
let receiver: Server;
let receiverUrl = "";
let webhookSecret = "";
let webhookId = "";
let customerId = "";
let keyId = "";
let keySecret = "";
let stagingKeyId = "";
let stagingSecret = "";
const received: Received[] = [];
const refusedOnce = new Set<string>();
const elsewhere: string[] = [];

beforeAll(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  stack = await startConsoleStack();
  // The vendor's endpoint: checks each event's signature with the secret the console showed once.
  receiver = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    request.on("end", () => {
      const header = String(request.headers["x-gateway-signature"] ?? "");
      const at = /t=(\d+)/.exec(header)?.[1] ?? "";
      const signature = /v1=([0-9a-f]+)/.exec(header)?.[1] ?? "";
      const expected = createHmac("sha256", webhookSecret).update(`${at}.${body}`).digest("hex");
      const event = JSON.parse(body) as { id: string; type: string; data: Record<string, unknown> };
      // The first key.quota_low attempt fails: the gateway must retry it until acknowledged.
      if (event.type === "key.quota_low" && !refusedOnce.has(event.id)) {
        refusedOnce.add(event.id);
        response.statusCode = 503;
        response.end("busy");
        return;
      }
      received.push({ type: event.type, id: event.id, verified: signature === expected, data: event.data });
      response.statusCode = 200;
      response.end("ok");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/gateway-events`;
  browser = await openBrowser(stack.url);
  const origin = new URL(stack.url).origin;
  browser.page.on("request", (request) => {
    if (!request.url().startsWith("blob:") && new URL(request.url()).origin !== origin) elsewhere.push(request.url());
  });
  await signIn(browser.page, stack.url, stack.tokens.full);
});

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
  await stack?.close();
});

afterEach(() => {
  expect(browser.takeErrors()).toEqual([]);
  expect(elsewhere).toEqual([]);
});

const nav = (name: string) => browser.page.getByRole("navigation", { name: "Console" }).getByRole("link", { name, exact: true });
const dollars = (text: string | null) => Number((text ?? "").replace(/[$,]/g, ""));

describe("vendor console: running a reseller business", () => {
  it("creates a webhook with its events, shows the signing secret once, and lists it", async () => {
    const { page } = browser;
    await nav("Webhooks").click();
    await page.getByRole("heading", { name: "Webhooks" }).waitFor();
    await page.getByText("No webhooks yet.").waitFor();
    await page.getByRole("button", { name: "Create webhook" }).click();
    const dialog = page.getByRole("dialog", { name: "Create webhook" });
    await dialog.getByLabel("URL", { exact: true }).fill(receiverUrl);
    // Every event is checked to start with; the vendor leaves out key.revoked.
    await dialog.getByRole("checkbox", { name: "key.revoked" }).uncheck();
    await dialog.getByRole("button", { name: "Create webhook" }).click();
    const created = page.getByRole("dialog", { name: "Webhook created" });
    webhookSecret = await created.getByTestId("secret").inputValue();
    expect(webhookSecret).toMatch(/^whsec_/);
    await created.getByRole("button", { name: "Done" }).click();
    const row = page.locator("[data-testid=webhooks-table] tbody tr", { hasText: receiverUrl });
    await expect.poll(() => row.count()).toBe(1);
    const listed = await stack.api<{ data: { id: string; url: string; events: string[]; secret?: string }[] }>("GET", "/api/webhooks");
    expect(listed.body.data).toHaveLength(1);
    expect(listed.body.data[0]!.events).toContain("key.quota_low");
    expect(listed.body.data[0]!.events).not.toContain("key.revoked");
    expect(listed.body.data[0]!.secret).toBeUndefined();
    webhookId = listed.body.data[0]!.id;
    expect(await row.textContent()).toContain("payment.succeeded");
  });

  it("refuses a webhook URL that is not http(s) with the API's message", async () => {
    const { page } = browser;
    await page.getByRole("button", { name: "Create webhook" }).click();
    const dialog = page.getByRole("dialog", { name: "Create webhook" });
    // The browser's own URL check passes ftp://; the API refuses it.
    await dialog.getByLabel("URL", { exact: true }).fill("ftp://example.com/hook");
    await dialog.getByRole("button", { name: "Create webhook" }).click();
    await expect.poll(() => dialog.getByRole("alert").textContent()).toMatch(/url/i);
    expect(browser.takeErrors()).toEqual([expect.stringContaining("status of 400")]);
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
  });

  it("creates a prepaid customer with a budget, finds it by search and opens its page", async () => {
    const { page } = browser;
    await nav("Customers").click();
    await page.getByRole("heading", { name: "Customers" }).waitFor();
    await page.getByText("No customers yet.").waitFor();
    await page.getByRole("button", { name: "Create customer" }).click();
    const dialog = page.getByRole("dialog", { name: "Create customer" });
    await dialog.getByLabel("Name", { exact: true }).fill("Acme Robotics");
    await dialog.getByLabel("Email", { exact: true }).fill("billing@acme.test");
    await dialog.getByLabel("Billing", { exact: true }).selectOption("prepaid");
    await dialog.getByLabel("Budget (USD)", { exact: true }).fill("50.00");
    await dialog.getByLabel("Budget period", { exact: true }).selectOption("month");
    await dialog.getByRole("button", { name: "Create customer" }).click();
    await page.getByRole("heading", { name: "Acme Robotics" }).waitFor();
    customerId = decodeURIComponent(page.url().split("/console/customers/")[1] ?? "");
    expect(customerId).toMatch(/^cus_/);
    const facts = page.getByTestId("customer-facts");
    expect(await facts.textContent()).toContain("prepaid");
    expect(await page.getByTestId("customer-budget").textContent()).toContain("$50.00");
    expect(await page.getByTestId("customer-balance").textContent()).toBe("$0.00");

    await stack.api("POST", "/api/customers", { name: "Other Customer" });
    await page.getByRole("link", { name: "← All customers" }).click();
    const rows = page.locator("[data-testid=customers-table] tbody tr");
    await expect.poll(() => rows.count()).toBe(2);
    await page.getByLabel("Search", { exact: true }).fill("acme");
    await expect.poll(() => rows.allTextContents()).toEqual([expect.stringContaining("Acme Robotics")]);
    await rows.getByRole("link", { name: "Acme Robotics" }).click();
    await page.getByRole("heading", { name: "Acme Robotics" }).waitFor();
  });

  it("creates a plan with 5-hour and weekly windows limited to one model", async () => {
    const { page } = browser;
    await nav("Plans").click();
    await page.getByRole("heading", { name: "Plans" }).waitFor();
    await page.getByRole("button", { name: "Create plan" }).click();
    const dialog = page.getByRole("dialog", { name: "Create plan" });
    await dialog.getByLabel("Name", { exact: true }).fill("Coding plan");
    await dialog.getByLabel("Price (USD)", { exact: true }).fill("20.00");
    await dialog.getByLabel("Billing period", { exact: true }).selectOption("month");
    await dialog.getByLabel("Window 1", { exact: true }).selectOption("5h");
    await dialog.getByLabel("Requests 1", { exact: true }).fill("100");
    await dialog.getByRole("button", { name: "Add window" }).click();
    await dialog.getByLabel("Window 2", { exact: true }).selectOption("week");
    await dialog.getByLabel("USD 2", { exact: true }).fill("10.00");
    await dialog.getByRole("checkbox", { name: "gpt-test" }).check();
    await dialog.getByRole("button", { name: "Create plan" }).click();
    await dialog.waitFor({ state: "detached" });
    const row = page.locator("[data-testid=plans-table] tbody tr", { hasText: "Coding plan" });
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.textContent()).toContain("$20.00 / month");
    expect(await row.getByTestId("plan-limits").textContent()).toBe("5h: 100 requests · week: $10.00");
    const plans = await stack.api<{ data: { name: string; limits: { window: string; requests?: number; usd?: string }[]; models: string[] }[] }>("GET", "/api/plans");
    const plan = plans.body.data.find((candidate) => candidate.name === "Coding plan")!;
    expect(plan.models).toEqual(["gpt-test"]);
    expect(plan.limits.map((limit) => limit.window)).toEqual(["5h", "week"]);
  });

  it("grants credits, subscribes the customer to the plan (its price charged to the wallet) and gives it a key (plaintext once)", async () => {
    const { page } = browser;
    await page.goto(`${stack.url}/console/customers/${customerId}`);
    await page.getByRole("heading", { name: "Acme Robotics" }).waitFor();
    await page.getByText("No wallet entries yet.").waitFor();
    // A prepaid wallet without the plan's $20 is refused with the API's message, and nothing changes.
    await page.getByLabel("Plan", { exact: true }).selectOption({ label: "Coding plan ($20.00 / month)" });
    await page.getByRole("button", { name: "Subscribe" }).click();
    await page.getByText("does not cover 20.000000 USD").waitFor();
    expect(browser.takeErrors()).toEqual([expect.stringContaining("status of 402")]);
    expect((await stack.api<{ subscription: unknown }>("GET", `/api/customers/${customerId}`)).body.subscription).toBeNull();

    await page.getByRole("button", { name: "Grant credits" }).click();
    const grant = page.getByRole("dialog", { name: "Grant credits to Acme Robotics" });
    await grant.getByLabel("Amount (USD)", { exact: true }).fill("25.00");
    await grant.getByLabel("Reason", { exact: true }).fill("Welcome credit");
    await grant.getByRole("button", { name: "Grant credits" }).click();
    await expect.poll(() => page.getByTestId("customer-balance").textContent()).toBe("$25.00");

    await page.getByLabel("Plan", { exact: true }).selectOption({ label: "Coding plan ($20.00 / month)" });
    await page.getByRole("button", { name: "Subscribe" }).click();
    const subscription = page.locator("[data-testid=customer-subscriptions] tbody tr", { hasText: "Coding plan" });
    await expect.poll(() => subscription.textContent()).toContain("active");
    await expect.poll(() => page.getByTestId("customer-balance").textContent()).toBe("$5.00");
    // The wallet page lists the charge and the grant, newest first, as the API does.
    const walletRows = page.locator("[data-testid=customer-wallet-entries] tbody tr");
    await expect.poll(() => walletRows.count()).toBe(2);
    expect(await walletRows.nth(0).textContent()).toContain("Plan charge");
    expect(await walletRows.nth(0).textContent()).toContain("-$20.00");
    expect(await walletRows.nth(1).textContent()).toContain("Welcome credit");
    const listed = await stack.api<{ data: { kind: string; amount: string }[] }>("GET", `/api/customers/${customerId}/wallet/entries`);
    expect(listed.body.data.map((entry) => [entry.kind, entry.amount])).toEqual([["plan", "-20.000000"], ["grant", "25.000000"]]);

    await page.getByRole("button", { name: "Create key for Acme Robotics" }).click();
    const create = page.getByRole("dialog", { name: "Create key" });
    await create.getByLabel("Server option", { exact: true }).selectOption("standard");
    await create.getByLabel("Name", { exact: true }).fill("acme-ci");
    // A small quota so that a few requests cross 80 % (key.quota_low).
    await create.getByLabel("Quota (USD)", { exact: true }).fill("0.0003");
    await create.getByRole("button", { name: "Create key" }).click();
    const created = page.getByRole("dialog", { name: "Key created" });
    keySecret = await created.getByTestId("secret").inputValue();
    expect(keySecret).toMatch(/^sk-/);
    await created.getByRole("button", { name: "Done" }).click();
    const keyRow = page.locator("[data-testid=customer-keys] tbody tr", { hasText: "acme-ci" });
    await expect.poll(() => keyRow.count()).toBe(1);
    const keys = await stack.api<{ data: { id: string; name: string; customer_id: string | null }[] }>("GET", "/api/keys?search=acme-ci");
    expect(keys.body.data[0]!.customer_id).toBe(customerId);
    keyId = keys.body.data[0]!.id;
    // The plan allows gpt-test only.
    expect((await stack.chat(keySecret, { model: "claude-test" })).status).toBe(403);
  });

  it("picks the customer when a key is created from the keys page", async () => {
    const { page } = browser;
    await nav("Keys").click();
    await page.getByRole("button", { name: "Create key" }).click();
    const dialog = page.getByRole("dialog", { name: "Create key" });
    await dialog.getByLabel("Server option", { exact: true }).selectOption("standard");
    await dialog.getByLabel("Name", { exact: true }).fill("acme-staging");
    await expect.poll(() => dialog.getByLabel("Customer", { exact: true }).locator("option").allTextContents()).toContain("Acme Robotics (billing@acme.test)");
    await dialog.getByLabel("Customer", { exact: true }).selectOption(customerId);
    await dialog.getByRole("button", { name: "Create key" }).click();
    const created = page.getByRole("dialog", { name: "Key created" });
    stagingSecret = await created.getByTestId("secret").inputValue();
    await created.getByRole("button", { name: "Done" }).click();
    const keys = await stack.api<{ data: { id: string; customer_id: string | null }[] }>("GET", "/api/keys?search=acme-staging");
    expect(keys.body.data[0]!.customer_id).toBe(customerId);
    stagingKeyId = keys.body.data[0]!.id;
    await page.goto(`${stack.url}/console/customers/${customerId}`);
    await expect.poll(() => page.locator("[data-testid=customer-keys] tbody tr").count()).toBe(2);
  });

  it("takes a card payment through Stripe Checkout, credited once the signed webhook arrives", async () => {
    const { page } = browser;
    await page.getByRole("button", { name: "Take a payment" }).click();
    const dialog = page.getByRole("dialog", { name: "Take a payment from Acme Robotics" });
    await dialog.getByLabel("Amount (USD)", { exact: true }).fill("20.00");
    await dialog.getByRole("button", { name: "Create payment link" }).click();
    const link = dialog.getByTestId("checkout-url");
    const href = (await link.getAttribute("href")) ?? "";
    expect(href).toMatch(/^https:\/\/checkout\.stripe\.test\/c\/pay\/cs_test_/);
    expect(await link.getAttribute("target")).toBe("_blank");
    const sessionId = href.split("/").pop()!;
    const request = stack.stripe.requests.find((candidate) => candidate.path === "/v1/checkout/sessions")!;
    expect(request.params.get("line_items[0][price_data][unit_amount]")).toBe("2000");
    await dialog.getByRole("button", { name: "Done" }).click();

    // The customer pays on Stripe's page; Stripe calls the gateway (simulated: the signed event).
    const before = (await stack.api<ApiCustomer>("GET", `/api/customers/${customerId}`)).body.balance;
    const event = {
      id: `evt_console_${Date.now()}`,
      object: "event",
      type: "checkout.session.completed",
      created: Math.floor(Date.now() / 1000),
      data: {
        object: {
          id: sessionId,
          object: "checkout.session",
          mode: "payment",
          payment_status: "paid",
          amount_total: 2000,
          currency: "usd",
          metadata: Object.fromEntries([...request.params.entries()].filter(([name]) => name.startsWith("metadata[")).map(([name, value]) => [name.slice(9, -1), value])),
          customer: null,
          payment_intent: null,
        },
      },
    };
    expect(await stack.stripeWebhook(event)).toBe(200);
    expect(await stack.stripeWebhook(event)).toBe(200);
    const after = (await stack.api<ApiCustomer>("GET", `/api/customers/${customerId}`)).body.balance;
    expect(Number(after) - Number(before)).toBeCloseTo(20, 6);
    await page.reload();
    await expect.poll(async () => dollars(await page.getByTestId("customer-balance").textContent())).toBe(Number(after));
    // The payment is listed once, succeeded, and credited once in the wallet.
    const paymentRows = page.locator("[data-testid=customer-payments] tbody tr");
    await expect.poll(() => paymentRows.count()).toBe(1);
    expect(await paymentRows.nth(0).textContent()).toContain("$20.00");
    expect(await paymentRows.nth(0).textContent()).toContain("succeeded");
    await expect.poll(() => page.locator("[data-testid=customer-wallet-entries] tbody tr", { hasText: "Card payment" }).count()).toBe(1);
  });

  it("creates redemption codes (plaintexts once, copied) and lists one as redeemed after the customer's key redeems it", async () => {
    const { page } = browser;
    await nav("Codes").click();
    await page.getByRole("heading", { name: "Redemption codes" }).waitFor();
    await page.getByRole("button", { name: "Create codes" }).click();
    const dialog = page.getByRole("dialog", { name: "Create redemption codes" });
    await dialog.getByLabel("Number of codes", { exact: true }).fill("3");
    await dialog.getByLabel("Amount each (USD)", { exact: true }).fill("1.00");
    await dialog.getByRole("button", { name: "Create codes" }).click();
    const shown = page.getByRole("dialog", { name: "Codes created" });
    const codes = (await shown.getByTestId("codes").inputValue()).split("\n");
    expect(codes).toHaveLength(3);
    for (const code of codes) expect(code).toMatch(/^rc_/);
    await shown.getByRole("button", { name: "Copy" }).click();
    await shown.getByText("Copied to the clipboard.").waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(codes.join("\n"));
    await shown.getByRole("button", { name: "Done" }).click();
    const rows = page.locator("[data-testid=codes-table] tbody tr");
    await expect.poll(() => rows.count()).toBe(3);
    expect(await page.locator("[data-testid=codes-table]").textContent()).not.toContain(codes[0]!);

    const before = Number((await stack.api<ApiCustomer>("GET", `/api/customers/${customerId}`)).body.balance);
    const redeemed = await fetch(`${stack.url}/v1/redeem`, { method: "POST", headers: { authorization: `Bearer ${keySecret}`, "content-type": "application/json" }, body: JSON.stringify({ code: codes[0] }) });
    expect(redeemed.status).toBe(200);
    const after = Number((await stack.api<ApiCustomer>("GET", `/api/customers/${customerId}`)).body.balance);
    expect(after - before).toBeCloseTo(1, 6);
    await page.reload();
    await expect.poll(() => rows.filter({ hasText: "redeemed" }).count()).toBe(1);
  });

  it("shows the key's usage and requests on its page after traffic", async () => {
    const { page } = browser;
    const ids: string[] = [];
    // Until 80 % of the small quota is spent: key.quota_low fires.
    const statuses: number[] = [];
    // Until admission refuses (the quota's last reservation): by then more than 80 % is spent.
    for (let attempt = 0; attempt < 45; attempt++) {
      const answer = await stack.chat(keySecret);
      statuses.push(answer.status);
      if (answer.status !== 200) break;
      ids.push(answer.requestId!);
    }
    expect(statuses.at(-1), `statuses ${statuses.join(",")}`).toBe(429);
    const logged = async () => (await stack.api<{ data: { id: string }[] }>("GET", `/api/requests?key_id=${keyId}&limit=100`)).body.data.map((row) => row.id);
    await eventually(async () => expect((await logged()).sort()).toEqual([...ids].sort()), 10_000);
    expect(ids.length, `statuses ${statuses.join(",")}`).toBeGreaterThan(0);
    await page.goto(`${stack.url}/console/keys/${keyId}`);
    await page.getByRole("heading", { name: "acme-ci" }).waitFor();
    await expect.poll(() => page.locator("[data-testid=requests-table] tbody tr").count()).toBe(Math.min(25, ids.length));
    await expect.poll(() => page.getByTestId("total-requests").textContent()).toBe(String(ids.length));
  });

  it("tries the customer's other key in the playground from its page: a streamed answer, its request id in the key's log", async () => {
    const { page } = browser;
    await page.goto(`${stack.url}/console/keys/${stagingKeyId}`);
    await page.getByRole("heading", { name: "acme-staging" }).waitFor();
    // The playground opens with the key chosen (its id in the address, never its secret).
    await page.getByRole("link", { name: "Try in the playground" }).click();
    await page.getByRole("heading", { name: "Playground" }).waitFor();
    await expect.poll(() => page.getByLabel("Key", { exact: true }).inputValue()).toBe(stagingKeyId);
    expect(page.url()).not.toContain(stagingSecret);
    await page.getByLabel("Key secret", { exact: true }).fill(stagingSecret);
    await page.getByLabel("Model", { exact: true }).selectOption("gpt-test");
    await page.getByLabel("Message", { exact: true }).fill("Hello from Acme");
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByTestId("playground-result").waitFor({ timeout: 10_000 });
    const requestId = (await page.getByTestId("playground-request-id").textContent()) ?? "";
    expect(requestId).toMatch(/^req_/);
    expect(Number(await page.getByTestId("playground-output-tokens").textContent())).toBeGreaterThan(0);
    expect((await page.getByTestId("playground-conversation").textContent())?.length).toBeGreaterThan("Hello from Acme".length);
    // The gateway logged it under that key.
    await eventually(async () => expect((await stack.api<{ data: { id: string }[] }>("GET", `/api/requests?key_id=${stagingKeyId}`)).body.data.map((row) => row.id)).toContain(requestId), 10_000);
  });

  it("receives key.quota_low, signed, and lists its delivery: status, attempts, response status", async () => {
    const { page } = browser;
    await eventually(async () => expect(received.map((event) => event.type)).toContain("key.quota_low"), 20_000);
    const lowEvent = received.find((event) => event.type === "key.quota_low")!;
    expect(lowEvent.verified).toBe(true);
    expect(lowEvent.data).toMatchObject({ key_id: keyId });
    // Refused once, then delivered: received once, for the one crossing.
    expect(refusedOnce.has(lowEvent.id)).toBe(true);
    expect(received.filter((event) => event.type === "key.quota_low")).toHaveLength(1);
    expect(received.map((event) => event.type)).toContain("payment.succeeded");
    await nav("Webhooks").click();
    await page.getByRole("link", { name: `Deliveries of ${receiverUrl}` }).click();
    await page.getByRole("heading", { name: "Webhook deliveries" }).waitFor();
    expect(await page.getByTestId("webhook-url").textContent()).toBe(receiverUrl);
    const row = page.locator("[data-testid=deliveries-table] tbody tr", { hasText: "key.quota_low" });
    await expect.poll(() => row.count(), { timeout: 10_000 }).toBeGreaterThan(0);
    const deliveries = await stack.api<{ data: { event: string; status: string; attempts: number; response_status: number | null }[] }>("GET", `/api/webhooks/${webhookId}/deliveries`);
    const low = deliveries.body.data.find((delivery) => delivery.event === "key.quota_low")!;
    await expect.poll(() => row.first().textContent()).toContain(low.status);
    expect(await row.first().textContent()).toContain(String(low.response_status ?? "none"));
    expect(await row.first().getByTestId("delivery-attempts").textContent()).toBe(String(low.attempts));
    expect(low).toMatchObject({ status: "succeeded", attempts: 2, response_status: 200 });
  });

  it("disables the customer (its key gets 401 key_disabled), enables it, and cancels its subscription", async () => {
    const { page } = browser;
    await page.goto(`${stack.url}/console/customers/${customerId}`);
    await page.getByRole("heading", { name: "Acme Robotics" }).waitFor();
    await page.getByRole("button", { name: "Edit", exact: true }).click();
    const edit = page.getByRole("dialog", { name: "Edit Acme Robotics" });
    await edit.getByLabel("Budget (USD)", { exact: true }).fill("60.00");
    await edit.getByRole("button", { name: "Save changes" }).click();
    await expect.poll(() => page.getByTestId("customer-budget").textContent()).toContain("of $60.00 / month");
    expect((await stack.api<{ budget: { limit: string } }>("GET", `/api/customers/${customerId}`)).body.budget.limit).toBe("60.000000");
    await page.getByRole("button", { name: "Disable", exact: true }).click();
    await expect.poll(() => page.getByTestId("customer-status").textContent()).toBe("disabled");
    await eventually(async () => expect(await stack.chat(keySecret)).toMatchObject({ status: 401, code: "key_disabled" }));
    await page.getByRole("button", { name: "Enable", exact: true }).click();
    await expect.poll(() => page.getByTestId("customer-status").textContent()).toBe("active");
    await page.getByRole("button", { name: "Cancel subscription to Coding plan" }).click();
    await page.getByText("No active subscription.").waitFor();
    expect((await stack.api<{ subscription: unknown }>("GET", `/api/customers/${customerId}`)).body.subscription).toBeNull();
  });

});

describe("vendor console: the reseller's pages on both screens", () => {
  for (const screen of SCREENS) {
    it(`fits every page on a ${screen.width}x${screen.height} screen`, async () => {
      const { page } = browser;
      await page.setViewportSize({ width: screen.width, height: screen.height });
      for (const target of [
        { path: "customers", heading: "Customers", ready: "[data-testid=customers-table]", name: "customers" },
        { path: `customers/${customerId}`, heading: "Acme Robotics", ready: "[data-testid=customer-keys]", name: "customer" },
        { path: "plans", heading: "Plans", ready: "[data-testid=plans-table]", name: "plans" },
        { path: "redemption-codes", heading: "Redemption codes", ready: "[data-testid=codes-table]", name: "codes" },
        { path: "webhooks", heading: "Webhooks", ready: "[data-testid=webhooks-table]", name: "webhooks" },
        { path: `webhooks/${webhookId}`, heading: "Webhook deliveries", ready: "[data-testid=deliveries-table]", name: "deliveries" },
      ]) {
        await page.goto(`${stack.url}/console/${target.path}`);
        await page.getByRole("heading", { name: target.heading, exact: true }).waitFor();
        await page.locator(target.ready).first().waitFor();
        await page.screenshot({ path: `${ARTIFACTS}${target.name}-${screen.name}.png`, fullPage: true });
        expect(await page.evaluate(() => document.documentElement.scrollWidth), `${target.path} at ${screen.width}px`).toBeLessThanOrEqual(screen.width);
      }
      // The plan dialog with two windows fits too.
      await page.goto(`${stack.url}/console/plans`);
      await page.getByRole("button", { name: "Create plan" }).click();
      await page.getByRole("dialog", { name: "Create plan" }).getByRole("button", { name: "Add window" }).click();
      await page.screenshot({ path: `${ARTIFACTS}plan-dialog-${screen.name}.png` });
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(screen.width);
      await page.keyboard.press("Escape");
    });
  }
});

describe("vendor console: ending the business's setup", () => {
  it("deletes the webhook after a confirmation", async () => {
    const { page } = browser;
    await nav("Webhooks").click();
    await page.getByRole("button", { name: `Delete ${receiverUrl}` }).click();
    await page.getByRole("dialog", { name: "Delete webhook?" }).getByRole("button", { name: "Delete webhook" }).click();
    await page.getByText("No webhooks yet.").waitFor();
    expect((await stack.api<{ data: unknown[] }>("GET", "/api/webhooks")).body.data).toHaveLength(0);
  });

  it("shows a token without the business scopes none of these pages", async () => {
    const { page } = browser;
    await page.getByRole("button", { name: "Sign out" }).click();
    await signIn(page, stack.url, stack.tokens.editor);
    const links = await page.getByRole("navigation", { name: "Console" }).getByRole("link").allTextContents();
    for (const hidden of ["Customers", "Plans", "Codes", "Webhooks"]) expect(links).not.toContain(hidden);
    await page.goto(`${stack.url}/console/customers`);
    await page.getByTestId("scope-notice").waitFor();
    expect(await page.getByTestId("scope-notice").textContent()).toContain("customers:read");
  });
});
