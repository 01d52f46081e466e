import { randomBytes } from "node:crypto";
import { GatewayError } from "@gateway/contracts";
import { isWebhookEventType, WEBHOOK_EVENT_TYPES, type PrismaClient, type Webhook, type WebhookDelivery, type WebhookEventType } from "@gateway/db";
import { z } from "zod";
import { toList, type List } from "../vendors/pagination.ts";
import { positionId, positionInstant } from "../vendors/report-schemas.ts";
import type { CreatedWebhookObject, CreateWebhookBody, WebhookDeliveryObject, WebhookObject } from "./schemas.ts";
import { newWebhookSecret, type SecretBox } from "./signature.ts";
import { checkWebhookUrl, type UrlPolicy } from "./url-safety.ts";

/** Active webhooks a vendor may have at once. */
export const MAX_WEBHOOKS_PER_VENDOR = 20;

export const webhookPositionSchema = z.object({ createdAt: positionInstant, id: positionId });
export type WebhookPosition = z.output<typeof webhookPositionSchema>;

export function newWebhookId(): string {
  return `wh_${randomBytes(16).toString("hex")}`;
}

/** `events` as given, each known and once; 400 naming `events` otherwise. */
export function readEvents(events: readonly string[]): WebhookEventType[] {
  const unknown = events.filter((event) => !isWebhookEventType(event));
  if (unknown.length > 0) {
    throw new GatewayError("invalid_body", `events: unknown event ${unknown.map((event) => JSON.stringify(event)).join(", ")}; known: ${WEBHOOK_EVENT_TYPES.join(", ")}`, { param: "events" });
  }
  return [...new Set(events as WebhookEventType[])];
}

export async function createWebhook(prisma: PrismaClient, box: SecretBox, policy: UrlPolicy, vendorId: string, body: CreateWebhookBody): Promise<CreatedWebhookObject> {
  const events = readEvents(body.events);
  const url = await checkWebhookUrl(body.url, policy);
  const active = await prisma.webhook.count({ where: { vendorId, status: "active" } });
  if (active >= MAX_WEBHOOKS_PER_VENDOR) throw new GatewayError("invalid_body", `url: at most ${MAX_WEBHOOKS_PER_VENDOR} webhooks per vendor; delete one first`, { param: "url" });
  const id = newWebhookId();
  const secret = newWebhookSecret();
  const row = await prisma.webhook.create({ data: { id, vendorId, url, events, secretCiphertext: box.seal(id, secret) } });
  return { ...presentWebhook(row), secret };
}

export async function findVendorWebhook(prisma: PrismaClient, vendorId: string, id: string): Promise<Webhook> {
  const row = await prisma.webhook.findFirst({ where: { id, vendorId, status: "active" } });
  if (!row) throw new GatewayError("not_found", "No webhook with that id.", { param: "id" });
  return row;
}

export async function listWebhooks(prisma: PrismaClient, vendorId: string, limit: number, after: WebhookPosition | undefined): Promise<List<WebhookObject>> {
  const createdAt = after && new Date(after.createdAt);
  const rows = await prisma.webhook.findMany({
    where: {
      vendorId,
      status: "active",
      ...(createdAt && after ? { createdAt: { lte: createdAt }, OR: [{ createdAt: { lt: createdAt } }, { id: { lt: after.id } }] } : {}),
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit + 1,
  });
  return toList(rows, limit, presentWebhook, (row) => ({ createdAt: row.createdAt.toISOString(), id: row.id }));
}

/** Deletes the webhook (kept as `deleted` so its deliveries stay on record); its pending deliveries are not sent. */
export async function deleteWebhook(prisma: PrismaClient, vendorId: string, id: string): Promise<WebhookObject> {
  return prisma.$transaction(async (tx) => {
    const row = await tx.webhook.findFirst({ where: { id, vendorId, status: "active" } });
    if (!row) throw new GatewayError("not_found", "No webhook with that id.", { param: "id" });
    const deleted = await tx.webhook.update({ where: { id }, data: { status: "deleted" } });
    await tx.webhookDelivery.updateMany({ where: { webhookId: id, status: "pending" }, data: { status: "failed" } });
    return presentWebhook(deleted);
  });
}

export async function listDeliveries(prisma: PrismaClient, webhookId: string, limit: number, after: WebhookPosition | undefined): Promise<List<WebhookDeliveryObject>> {
  const createdAt = after && new Date(after.createdAt);
  const rows = await prisma.webhookDelivery.findMany({
    where: {
      webhookId,
      ...(createdAt && after ? { createdAt: { lte: createdAt }, OR: [{ createdAt: { lt: createdAt } }, { id: { lt: after.id } }] } : {}),
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit + 1,
  });
  return toList(rows, limit, presentDelivery, (row) => ({ createdAt: row.createdAt.toISOString(), id: row.id }));
}

export function presentWebhook(row: Webhook): WebhookObject {
  return {
    id: row.id,
    object: "webhook",
    url: row.url,
    events: row.events.filter(isWebhookEventType),
    status: row.status === "deleted" ? "deleted" : "active",
    created_at: row.createdAt.toISOString(),
  };
}

export function presentDelivery(row: WebhookDelivery): WebhookDeliveryObject {
  const status = row.status === "succeeded" || row.status === "failed" ? row.status : "pending";
  return {
    id: row.id,
    object: "webhook_delivery",
    event: row.event,
    event_id: row.eventId,
    status,
    attempts: row.attempts,
    response_status: row.responseStatus,
    next_attempt_at: status === "pending" ? row.nextAttemptAt.toISOString() : null,
    delivered_at: row.deliveredAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
  };
}
