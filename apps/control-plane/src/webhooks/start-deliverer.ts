import type { ControlPlaneServices } from "../services.ts";
import { WebhookDeliverer, type DelivererOptions } from "./deliverer.ts";
import { secretBox } from "./signature.ts";

/** The process's deliverer, as configured (WEBHOOK_* variables); `overrides` for tests (clock, backoff). */
export function createWebhookDeliverer(services: ControlPlaneServices, overrides: Partial<DelivererOptions> = {}): WebhookDeliverer {
  const { config } = services;
  return new WebhookDeliverer({
    prisma: services.db.prisma,
    box: secretBox(config.IDEMPOTENCY_SECRET),
    logger: services.logger,
    allowPrivate: config.WEBHOOK_ALLOW_PRIVATE,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    retryBaseMs: config.WEBHOOK_RETRY_BASE_MS,
    retryMaxMs: config.WEBHOOK_RETRY_MAX_MS,
    giveUpMs: config.WEBHOOK_GIVE_UP_MS,
    pollIntervalMs: config.WEBHOOK_POLL_INTERVAL_MS,
    concurrency: config.WEBHOOK_CONCURRENCY,
    ...overrides,
  });
}
