import type { NextFunction, Request, Response } from "express";
import { GatewayError } from "@gateway/contracts";
import type { ControlPlaneServices } from "../services.ts";
import { readPageRequest } from "../vendors/pagination.ts";
import { parseInput } from "../vendors/parse-input.ts";
import { vendorOf } from "../vendors/vendor-auth.ts";
import { createWebhookBodySchema } from "../webhooks/schemas.ts";
import { secretBox } from "../webhooks/signature.ts";
import { createWebhook, deleteWebhook, findVendorWebhook, listDeliveries, listWebhooks, presentWebhook, webhookPositionSchema } from "../webhooks/webhook-service.ts";

/** An id no webhook could have: 404 before any lookup. */
export function webhookId(request: Request<{ id: string }>, _response: Response, next: NextFunction): void {
  next(/^wh_[0-9a-f]{32}$/.test(request.params.id) ? undefined : new GatewayError("not_found", "No webhook with that id.", { param: "id" }));
}

/** POST /api/webhooks (webhooks:write): 201 with the signing secret, shown once. */
export function createWebhookRoute(services: ControlPlaneServices) {
  const box = secretBox(services.config.IDEMPOTENCY_SECRET);
  return async (request: Request, response: Response): Promise<void> => {
    const body = parseInput(createWebhookBodySchema, request.body, "body");
    const created = await createWebhook(services.db.prisma, box, { allowPrivate: services.config.WEBHOOK_ALLOW_PRIVATE }, vendorOf(request).vendorId, body);
    response.status(201).json(created);
  };
}

/** GET /api/webhooks (webhooks:write): the vendor's active webhooks, newest first, without secrets. */
export function listWebhooksRoute(services: ControlPlaneServices) {
  return async (request: Request, response: Response): Promise<void> => {
    const { limit, after } = readPageRequest(request.query, webhookPositionSchema);
    response.json(await listWebhooks(services.db.prisma, vendorOf(request).vendorId, limit, after));
  };
}

/** GET /api/webhooks/{id} (webhooks:write). */
export function getWebhookRoute(services: ControlPlaneServices) {
  return async (request: Request<{ id: string }>, response: Response): Promise<void> => {
    response.json(presentWebhook(await findVendorWebhook(services.db.prisma, vendorOf(request).vendorId, request.params.id)));
  };
}

/** DELETE /api/webhooks/{id} (webhooks:write): 200 with the webhook, `status: "deleted"`; nothing more is sent to it. */
export function deleteWebhookRoute(services: ControlPlaneServices) {
  return async (request: Request<{ id: string }>, response: Response): Promise<void> => {
    response.json(await deleteWebhook(services.db.prisma, vendorOf(request).vendorId, request.params.id));
  };
}

/** GET /api/webhooks/{id}/deliveries (webhooks:write): newest first, cursor-paginated. */
export function listDeliveriesRoute(services: ControlPlaneServices) {
  return async (request: Request<{ id: string }>, response: Response): Promise<void> => {
    const { limit, after } = readPageRequest(request.query, webhookPositionSchema);
    const webhook = await findVendorWebhook(services.db.prisma, vendorOf(request).vendorId, request.params.id);
    response.json(await listDeliveries(services.db.prisma, webhook.id, limit, after));
  };
}
