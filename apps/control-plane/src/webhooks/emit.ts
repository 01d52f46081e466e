// emitEvent: the control plane's door to webhook events (contract section 19). The rows are written
// by @gateway/db's emitWebhookEvent, which the billing worker shares; the deliverer sends them.
import { emitWebhookEvent, type EmittedWebhookEvent, type WebhookEmitClient, type WebhookEventType } from "@gateway/db";

export { WEBHOOK_EVENT_TYPES, type WebhookEventType } from "@gateway/db";

export interface EmitEventInput {
  vendorId: string;
  type: WebhookEventType;
  /**
   * Deterministic per occurrence, e.g. `payment.succeeded:<paymentId>`,
   * `customer.balance_low:<customerId>:<wallet entry id that refilled it last>`: the same id emitted
   * twice is delivered once. Hashed into `evt_...`.
   */
  eventId: string;
  /** The event's `data` object, as the vendor receives it (USD as decimal strings, ids with prefixes). */
  data: Record<string, unknown>;
}

/**
 * Queues the event for every active webhook of the vendor subscribed to `type` (one pending
 * delivery row each, unique per webhook and event); the deliverer loop signs and sends them.
 * `prisma` may be a transaction's client: the event then commits with the caller's change.
 */
export function emitEvent(prisma: WebhookEmitClient, input: EmitEventInput): Promise<EmittedWebhookEvent> {
  return emitWebhookEvent(prisma, input);
}
