// Webhook events to the vendor (contract section 19): the one place an event becomes delivery rows.
// Shared by the control plane (key revoke, wallet, payments) and the billing worker (quota and
// budget crossings), so neither depends on the other; the control plane's deliverer sends the rows.
import { createHash } from "node:crypto";
import type { Prisma } from "./generated/client.ts";

export const WEBHOOK_EVENT_TYPES = [
  "key.quota_low",
  "key.quota_exhausted",
  "key.budget_exceeded",
  "key.revoked",
  "customer.balance_low",
  "payment.succeeded",
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export function isWebhookEventType(value: string): value is WebhookEventType {
  return (WEBHOOK_EVENT_TYPES as readonly string[]).includes(value);
}

/** What `emitWebhookEvent` needs of a client: a PrismaClient or an interactive transaction's client. */
export type WebhookEmitClient = Pick<Prisma.TransactionClient, "$executeRaw">;

export interface WebhookEventInput {
  vendorId: string;
  type: WebhookEventType;
  /**
   * A deterministic name of this occurrence, chosen by the caller, e.g.
   * `key.quota_low:<keyId>:<quota nano>` or `payment.succeeded:<paymentId>`: emitting the same name
   * again (a repeated crossing check, a retried job) delivers nothing more. Hashed into `evt_...`;
   * an `evt_` id is taken as is.
   */
  eventId: string;
  data: Record<string, unknown>;
  /** `created_at` of the event; default now. */
  now?: Date;
}

export interface EmittedWebhookEvent {
  /** evt_...: the same for every webhook it goes to. */
  id: string;
  /** Delivery rows inserted now (0 when no webhook wants it, or it was emitted before). */
  deliveries: number;
}

const EVENT_ID = /^evt_[A-Za-z0-9]{1,64}$/;

/** `evt_` and 32 hex digits of sha256 of the caller's occurrence name. */
export function webhookEventId(name: string): string {
  return EVENT_ID.test(name) ? name : `evt_${createHash("sha256").update(name).digest("hex").slice(0, 32)}`;
}

/** The body every webhook of the event receives, signed as is: `{"id","type","created_at","data"}`. */
export function webhookEventBody(id: string, type: WebhookEventType, createdAt: Date, data: Record<string, unknown>): string {
  return JSON.stringify({ id, type, created_at: createdAt.toISOString(), data });
}

/**
 * Inserts one pending delivery per active webhook of the vendor subscribed to `type`, in one
 * statement; (webhook, event) is unique, so an event already emitted inserts nothing (each event is
 * delivered once per webhook, however often a crossing is seen). Runs inside the caller's
 * transaction when given one: the event then exists exactly when the change that caused it commits.
 */
export async function emitWebhookEvent(client: WebhookEmitClient, input: WebhookEventInput): Promise<EmittedWebhookEvent> {
  const id = webhookEventId(input.eventId);
  const body = webhookEventBody(id, input.type, input.now ?? new Date(), input.data);
  const deliveries = await client.$executeRaw`
    INSERT INTO webhook_deliveries (id, webhook_id, event_id, event, body, status, attempts, next_attempt_at, created_at)
    SELECT 'whd_' || md5(w.id || ':' || ${id}), w.id, ${id}, ${input.type}, ${body}, 'pending', 0, now(), now()
    FROM webhooks AS w
    WHERE w.vendor_id = ${input.vendorId} AND w.status = 'active' AND ${input.type} = ANY (w.events)
    ORDER BY w.id
    ON CONFLICT (webhook_id, event_id) DO NOTHING`;
  return { id, deliveries };
}
