import { WEBHOOK_EVENT_TYPES } from "@gateway/db";
import { z } from "zod";
import { listOf, pageQuerySchema } from "../vendors/api-schemas.ts";

/** Bodies and responses of /api/webhooks (contract section 19); the OpenAPI document is built from them. */
const isoDateTime = z.iso.datetime({ offset: true });

export const createWebhookBodySchema = z.strictObject({
  url: z.string().min(1).max(2048).describe("Where events are POSTed: an http(s) URL of a public address (private ones only with WEBHOOK_ALLOW_PRIVATE=true)."),
  events: z
    .array(z.string().max(100))
    .min(1)
    .max(WEBHOOK_EVENT_TYPES.length)
    .describe(`The events this webhook receives: ${WEBHOOK_EVENT_TYPES.join(", ")}.`),
});
export type CreateWebhookBody = z.output<typeof createWebhookBodySchema>;

export const webhookSchema = z.object({
  id: z.string().describe("wh_..."),
  object: z.literal("webhook"),
  url: z.string(),
  events: z.array(z.enum(WEBHOOK_EVENT_TYPES)),
  status: z.enum(["active", "deleted"]),
  created_at: isoDateTime,
});
export type WebhookObject = z.output<typeof webhookSchema>;

export const createdWebhookSchema = webhookSchema.extend({
  secret: z.string().describe("whsec_...: the signing secret, shown only in this response. Each event carries `x-gateway-signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, \"<t>.<body>\")>`."),
});
export type CreatedWebhookObject = z.output<typeof createdWebhookSchema>;

export const DELIVERY_STATUSES = ["pending", "succeeded", "failed"] as const;

export const webhookDeliverySchema = z.object({
  id: z.string().describe("whd_..."),
  object: z.literal("webhook_delivery"),
  event: z.string().describe(`The event's type: ${WEBHOOK_EVENT_TYPES.join(", ")}.`),
  event_id: z.string().describe("evt_..., the `id` in the body (the same for every webhook of the event)."),
  status: z.enum(DELIVERY_STATUSES).describe("pending (not acknowledged yet, retried with backoff), succeeded (a 2xx came back) or failed (no 2xx within 24 h)."),
  attempts: z.number().int().nonnegative(),
  response_status: z.number().int().nullable().describe("The HTTP status of the last attempt; null before one, or when none came (timeout, connection refused)."),
  next_attempt_at: isoDateTime.nullable().describe("When a pending delivery is tried next; null once settled."),
  delivered_at: isoDateTime.nullable(),
  created_at: isoDateTime,
});
export type WebhookDeliveryObject = z.output<typeof webhookDeliverySchema>;

export const webhookListSchema = listOf(webhookSchema);
export const webhookDeliveryListSchema = listOf(webhookDeliverySchema);
export const webhookListQuerySchema = pageQuerySchema;
