import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emitEvent } from "./emit.ts";
import { verifySignature } from "./signature.ts";
import { createWebhookDeliverer } from "./start-deliverer.ts";
import { refusedAddress } from "./url-safety.ts";
import { startReceiver, startWebhookFixture, waitFor, type Receiver, type WebhookFixture } from "./webhooks-fixture.ts";

describe("webhooks API, private addresses refused (the default)", () => {
  let fixture: WebhookFixture;
  beforeAll(async () => {
    fixture = await startWebhookFixture();
  }, 60_000);
  afterAll(async () => {
    await fixture?.close();
  });

  it.each([
    ["http://127.0.0.1:8081/hook", "loopback"],
    ["http://localhost/hook", "localhost"],
    ["http://10.1.2.3/hook", "private"],
    ["http://192.168.1.10/hook", "private"],
    ["http://[::1]/hook", "loopback v6"],
    ["http://[::ffff:127.0.0.1]/hook", "v4-mapped loopback"],
    ["http://169.254.169.254/latest/meta-data", "link-local (cloud metadata)"],
    ["http://[fe80::1]/hook", "link-local v6"],
    ["http://0.0.0.0/hook", "unspecified"],
    ["ftp://example.com/hook", "not http(s)"],
    ["not a url", "not a URL"],
    ["https://user:pw@example.com/hook", "credentials"],
  ])("refuses %s (%s) with a 400 naming url", async (url) => {
    const response = await fixture.call("POST", "/api/webhooks", { body: { url, events: ["key.revoked"] } });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ type: "invalid_request_error", code: "invalid_body", param: "url" });
  });

  it("refuses the gateway host's own interface addresses", () => {
    expect(refusedAddress("127.0.0.1")).not.toBeNull();
    expect(refusedAddress("8.8.8.8")).toBeNull();
    expect(refusedAddress("2606:4700:4700::1111")).toBeNull();
    expect(refusedAddress("::ffff:7f00:1")).not.toBeNull();
  });

  it("refuses unknown event names with a 400 naming events", async () => {
    const response = await fixture.call("POST", "/api/webhooks", { body: { url: "https://8.8.8.8/hook", events: ["key.revoked", "key.exploded"] } });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: "invalid_body", param: "events" });
    expect(response.body.error.message).toContain("key.exploded");
    const empty = await fixture.call("POST", "/api/webhooks", { body: { url: "https://8.8.8.8/hook", events: [] } });
    expect(empty.body.error.param).toBe("events");
  });

  it("creates (secret once), lists, reads and deletes a webhook; another vendor sees none of it", async () => {
    const created = await fixture.call("POST", "/api/webhooks", { body: { url: "https://8.8.8.8/hook", events: ["key.quota_low", "key.revoked"] } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ object: "webhook", url: "https://8.8.8.8/hook", events: ["key.quota_low", "key.revoked"], status: "active" });
    expect(created.body.id).toMatch(/^wh_[0-9a-f]{32}$/);
    expect(created.body.secret).toMatch(/^whsec_/);
    const stored = await fixture.planes[0]!.services.db.prisma.webhook.findUniqueOrThrow({ where: { id: created.body.id } });
    expect(stored.secretCiphertext).not.toContain(created.body.secret);

    const got = await fixture.call("GET", `/api/webhooks/${created.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body.secret).toBeUndefined();
    const list = await fixture.call("GET", "/api/webhooks");
    expect(list.body).toMatchObject({ object: "list", has_more: false, next_cursor: null });
    expect(list.body.data.map((item: { id: string }) => item.id)).toContain(created.body.id);
    expect(list.body.data.every((item: { secret?: string }) => item.secret === undefined)).toBe(true);

    expect((await fixture.call("GET", `/api/webhooks/${created.body.id}`, { token: fixture.globex })).status).toBe(404);
    expect((await fixture.call("DELETE", `/api/webhooks/${created.body.id}`, { token: fixture.globex })).status).toBe(404);
    expect((await fixture.call("GET", "/api/webhooks", { token: fixture.globex })).body.data).toEqual([]);

    const deleted = await fixture.call("DELETE", `/api/webhooks/${created.body.id}`);
    expect(deleted.body).toMatchObject({ id: created.body.id, status: "deleted" });
    expect((await fixture.call("GET", `/api/webhooks/${created.body.id}`)).status).toBe(404);
    expect((await fixture.call("GET", "/api/webhooks/wh_nope")).status).toBe(404);
  });

  it("needs the webhooks:write scope", async () => {
    const { createVendorToken } = await import("../vendors/vendor-tokens.ts");
    const readOnly = (await createVendorToken(fixture.planes[0]!.services.db.prisma, { vendor: "acme", name: "ro", scopes: ["keys:read"] })).plaintext;
    const response = await fixture.call("GET", "/api/webhooks", { token: readOnly });
    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe("missing_scope");
  });

  it("never sends to a name that resolves to a private address at delivery time (DNS re-pointed after the check)", async () => {
    const receiver = await startReceiver(() => 200);
    try {
      const { prisma } = fixture.planes[0]!.services.db;
      const vendor = await prisma.vendor.findUniqueOrThrow({ where: { name: "acme" } });
      // As if the name had resolved to a public address when the webhook was created.
      const webhook = await prisma.webhook.create({
        data: { id: `wh_${"0".repeat(31)}1`, vendorId: vendor.id, url: receiver.url.replace("127.0.0.1", "localhost"), events: ["key.quota_exhausted"], secretCiphertext: "v1.x" },
      });
      const box = (await import("./signature.ts")).secretBox(fixture.planes[0]!.services.config.IDEMPOTENCY_SECRET);
      await prisma.webhook.update({ where: { id: webhook.id }, data: { secretCiphertext: box.seal(webhook.id, "whsec_test") } });
      await emitEvent(prisma, { vendorId: vendor.id, type: "key.quota_exhausted", eventId: "key.quota_exhausted:key_x:1", data: {} });
      const row = await waitFor(async () => {
        const found = await prisma.webhookDelivery.findFirst({ where: { webhookId: webhook.id } });
        // Past its claim (which holds it for the timeout + 30 s): the failure scheduled the retry (at most 10 s on).
        return found && found.attempts >= 1 && found.status === "pending" && found.nextAttemptAt.getTime() < Date.now() + 15_000 ? found : undefined;
      }, "a refused attempt");
      expect(row.responseStatus).toBeNull();
      expect(receiver.calls).toHaveLength(0);
    } finally {
      await receiver.close();
    }
  });

  it("retries the first attempt within 30 s by default, and backs off up to the cap", () => {
    const deliverer = createWebhookDeliverer(fixture.planes[0]!.services, { random: () => 1 });
    expect(deliverer.backoffMs(1)).toBeLessThanOrEqual(30_000);
    expect(deliverer.backoffMs(2)).toBeGreaterThan(deliverer.backoffMs(1));
    expect(deliverer.backoffMs(40)).toBe(3_600_000);
  });
});

describe("webhook delivery (two control planes, local receiver)", () => {
  let fixture: WebhookFixture;
  const receivers: Receiver[] = [];
  beforeAll(async () => {
    fixture = await startWebhookFixture({
      planes: 2,
      env: { WEBHOOK_ALLOW_PRIVATE: "true", WEBHOOK_TIMEOUT_MS: "500", WEBHOOK_RETRY_BASE_MS: "200", WEBHOOK_RETRY_MAX_MS: "1000", WEBHOOK_POLL_INTERVAL_MS: "50" },
    });
  }, 60_000);
  afterAll(async () => {
    for (const receiver of receivers) await receiver.close();
    await fixture?.close();
  });

  it("retries a delivery that failed twice (500, then no answer) until the 2xx, once acknowledged; the signature verifies", async () => {
    const receiver = await startReceiver((_call, index) => (index === 0 ? 500 : index === 1 ? "hang" : 200));
    receivers.push(receiver);
    const webhook = (await fixture.call("POST", "/api/webhooks", { body: { url: receiver.url, events: ["key.revoked"] } })).body;
    expect(webhook.secret).toMatch(/^whsec_/);
    const key = (await fixture.call("POST", "/api/keys", { body: { server_option: "standard", name: "to revoke" } })).body;
    expect((await fixture.call("DELETE", `/api/keys/${key.id}`)).status).toBe(200);
    // A second revoke of the same key is no second event.
    expect((await fixture.call("DELETE", `/api/keys/${key.id}`, { plane: 1 })).status).toBe(200);

    const deliveries = await waitFor(async () => {
      const list = (await fixture.call("GET", `/api/webhooks/${webhook.id}/deliveries`)).body;
      return list.data[0]?.status === "succeeded" ? list : undefined;
    }, "the delivery to succeed");
    expect(deliveries.data).toHaveLength(1);
    expect(deliveries.data[0]).toMatchObject({ object: "webhook_delivery", event: "key.revoked", status: "succeeded", attempts: 3, response_status: 200, next_attempt_at: null });
    expect(deliveries.data[0].id).toMatch(/^whd_/);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(receiver.calls).toHaveLength(3);

    const bodies = new Set(receiver.calls.map((call) => call.body));
    expect(bodies.size).toBe(1);
    const body = JSON.parse(receiver.calls[0]!.body);
    expect(body).toMatchObject({ type: "key.revoked", data: { key_id: key.id, name: "to revoke", prefix: key.prefix } });
    expect(body.id).toMatch(/^evt_[0-9a-f]{32}$/);
    expect(body.id).toBe(deliveries.data[0].event_id);
    expect(Date.parse(body.created_at)).not.toBeNaN();
    for (const call of receiver.calls) {
      const header = call.headers["x-gateway-signature"] as string;
      expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      expect(verifySignature(webhook.secret, call.body, header)).toBe(true);
      expect(verifySignature("whsec_wrong", call.body, header)).toBe(false);
      expect(verifySignature(webhook.secret, `${call.body} `, header)).toBe(false);
    }
    // Retried with backoff: the second attempt came after the first's 200 ms pause, the third after the 500 ms timeout.
    expect(receiver.calls[1]!.at - receiver.calls[0]!.at).toBeGreaterThanOrEqual(140);
  });

  it("delivers each event once per webhook across two control planes, and once however often it is emitted", async () => {
    const receiver = await startReceiver(() => 204);
    receivers.push(receiver);
    const webhook = (await fixture.call("POST", "/api/webhooks", { body: { url: receiver.url, events: ["payment.succeeded"] } })).body;
    const other = (await fixture.call("POST", "/api/webhooks", { body: { url: receiver.url, events: ["customer.balance_low"] } })).body;
    const { prisma } = fixture.planes[0]!.services.db;
    const vendorId = (await prisma.webhook.findUniqueOrThrow({ where: { id: webhook.id } })).vendorId;
    const emitted = [];
    for (let index = 0; index < 30; index += 1) {
      emitted.push(await emitEvent(prisma, { vendorId, type: "payment.succeeded", eventId: `payment.succeeded:pay_${index}`, data: { payment_id: `pay_${index}` } }));
      // The same occurrence again (a retried Stripe webhook, say): nothing more.
      const again = await emitEvent(fixture.planes[1]!.services.db.prisma, { vendorId, type: "payment.succeeded", eventId: `payment.succeeded:pay_${index}`, data: { payment_id: `pay_${index}` } });
      expect(again).toEqual({ id: emitted[index]!.id, deliveries: 0 });
    }
    expect(emitted.every((event) => event.deliveries === 1)).toBe(true);
    await waitFor(async () => (await prisma.webhookDelivery.count({ where: { webhookId: webhook.id, status: "succeeded" } })) === 30, "30 deliveries");
    await new Promise((resolve) => setTimeout(resolve, 500));
    const ids = receiver.calls.map((call) => call.headers["x-gateway-delivery"]);
    expect(ids).toHaveLength(30);
    expect(new Set(ids).size).toBe(30);
    expect(await prisma.webhookDelivery.count({ where: { webhookId: other.id } })).toBe(0);

    // The deliveries list pages by cursor, newest first.
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { data: { id: string; attempts: number }[]; next_cursor: string | null; has_more: boolean } } = await fixture.call(
        "GET",
        `/api/webhooks/${webhook.id}/deliveries?limit=7${cursor ? `&cursor=${cursor}` : ""}`,
      );
      expect(page.body.data.length).toBeLessThanOrEqual(7);
      seen.push(...page.body.data.map((item) => item.id));
      expect(page.body.data.every((item) => item.attempts === 1)).toBe(true);
      cursor = page.body.next_cursor;
    } while (cursor !== null);
    expect(new Set(seen).size).toBe(30);
    expect((await fixture.call("GET", `/api/webhooks/${webhook.id}/deliveries?cursor=garbage`)).status).toBe(400);
  });

  it("gives up after 24 h of failures (injected clock), and stops sending to a deleted webhook", async () => {
    for (const plane of fixture.planes) await plane.deliverer.stop();
    const receiver = await startReceiver(() => 503);
    receivers.push(receiver);
    const webhook = (await fixture.call("POST", "/api/webhooks", { body: { url: receiver.url, events: ["key.budget_exceeded"] } })).body;
    const { prisma } = fixture.planes[0]!.services.db;
    const vendorId = (await prisma.webhook.findUniqueOrThrow({ where: { id: webhook.id } })).vendorId;
    await emitEvent(prisma, { vendorId, type: "key.budget_exceeded", eventId: "key.budget_exceeded:key_1:1", data: { key_id: "key_1" } });
    let clock = Date.now() + 1_000;
    const deliverer = createWebhookDeliverer(fixture.planes[0]!.services, { now: () => clock, retryBaseMs: 10_000 });
    expect(await deliverer.runOnce()).toBe(1);
    let row = await prisma.webhookDelivery.findFirstOrThrow({ where: { webhookId: webhook.id } });
    expect(row).toMatchObject({ status: "pending", attempts: 1, responseStatus: 503 });
    expect(row.nextAttemptAt.getTime() - clock).toBeLessThanOrEqual(30_000);
    expect(await deliverer.runOnce()).toBe(0); // not due yet
    clock += 12 * 3_600_000;
    expect(await deliverer.runOnce()).toBe(1);
    row = await prisma.webhookDelivery.findFirstOrThrow({ where: { webhookId: webhook.id } });
    expect(row.status).toBe("pending");
    // Scheduled no later than 24 h after the event: the last attempt is at the deadline.
    expect(row.nextAttemptAt.getTime()).toBeLessThanOrEqual(row.createdAt.getTime() + 86_400_000);
    clock = row.createdAt.getTime() + 86_400_000 + 1;
    expect(await deliverer.runOnce()).toBe(1);
    row = await prisma.webhookDelivery.findFirstOrThrow({ where: { webhookId: webhook.id } });
    expect(row).toMatchObject({ status: "failed", attempts: 3, responseStatus: 503 });
    expect(receiver.calls).toHaveLength(3);
    const listed = (await fixture.call("GET", `/api/webhooks/${webhook.id}/deliveries`)).body.data[0];
    expect(listed).toMatchObject({ status: "failed", attempts: 3, response_status: 503, next_attempt_at: null });

    await emitEvent(prisma, { vendorId, type: "key.budget_exceeded", eventId: "key.budget_exceeded:key_1:2", data: { key_id: "key_1" } });
    await fixture.call("DELETE", `/api/webhooks/${webhook.id}`);
    clock += 60_000;
    await deliverer.runOnce();
    expect(receiver.calls).toHaveLength(3);
    expect(await prisma.webhookDelivery.count({ where: { webhookId: webhook.id, status: "pending" } })).toBe(0);
  });
});
