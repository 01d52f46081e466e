import { Router, type Express, type NextFunction, type Request, type Response } from "express";
import { GatewayError, isIdOf } from "@gateway/contracts";
import { jsonBody } from "@gateway/http";
import type { ControlPlaneServices } from "../services.ts";
import { requireScope, vendorAuth } from "../vendors/vendor-auth.ts";
import { openApiRoute } from "./api-openapi.ts";
import { createKeyRoute, listKeysRoute } from "./api-keys.ts";
import { getKeyRoute, revokeKeyRoute, updateKeyRoute } from "./api-keys-id.ts";
import { rotateKeyRoute } from "./api-keys-id-rotate.ts";
import { keyUsageRoute } from "./api-keys-id-usage.ts";
import { listServerOptionsRoute } from "./api-server-options.ts";
import { usageReportRoute } from "./api-usage.ts";
import { requestLogRoute } from "./api-requests.ts";
import { auditLogRoute } from "./api-audit-log.ts";
import { tokenRoute } from "./api-token.ts";
import { upstreamHealthRoute } from "./api-upstreams.ts";
import { createCustomerRoute, listCustomersRoute } from "./api-customers.ts";
import { cancelSubscriptionRoute, createSubscriptionRoute, getCustomerRoute, updateCustomerRoute } from "./api-customers-id.ts";
import { createPlanRoute, listPlansRoute } from "./api-plans.ts";
import { getPlanRoute } from "./api-plans-id.ts";
import { listSubscriptionsRoute } from "./api-customers-id-subscriptions.ts";
import { createWebhookRoute, deleteWebhookRoute, getWebhookRoute, listDeliveriesRoute, listWebhooksRoute, webhookId } from "./api-webhooks.ts";
import { usageCsvRoute } from "./api-usage-csv.ts";
import { requestsCsvRoute } from "./api-requests-csv.ts";

/**
 * The vendor (reseller) API under /api (contract section 6). Order per route: the token, then the
 * scope, then the body, so an unauthenticated caller never gets a body read. Handlers are async:
 * Express 5 passes a rejected promise to the shared error handler, which renders the one envelope.
 */
/** An id no key could have (NUL bytes, slashes, junk) is a missing key: 404 before any lookup. */
function keyId(request: Request<{ id: string }>, _response: Response, next: NextFunction): void {
  const { id } = request.params;
  next(isIdOf("key", id) ? undefined : new GatewayError("not_found", "No key with that id.", { param: "id" }));
}

export function mountVendorApi(app: Express, services: ControlPlaneServices): void {
  const router = Router();
  const authenticated = vendorAuth(services);
  router.get("/openapi.json", openApiRoute());
  router.get("/token", authenticated, tokenRoute(services));
  router.get("/server-options", authenticated, listServerOptionsRoute(services));
  router.post("/keys", authenticated, requireScope("keys:create"), jsonBody(services.config.BODY_LIMIT_BYTES), createKeyRoute(services));
  router.get("/keys", authenticated, requireScope("keys:read"), listKeysRoute(services));
  router.get("/keys/:id", authenticated, requireScope("keys:read"), keyId, getKeyRoute(services));
  router.patch("/keys/:id", authenticated, requireScope("keys:update"), keyId, jsonBody(services.config.BODY_LIMIT_BYTES), updateKeyRoute(services));
  router.post("/keys/:id/rotate", authenticated, requireScope("keys:update"), keyId, jsonBody(services.config.BODY_LIMIT_BYTES, { optional: true }), rotateKeyRoute(services));
  router.delete("/keys/:id", authenticated, requireScope("keys:revoke"), keyId, revokeKeyRoute(services));
  router.get("/keys/:id/usage", authenticated, requireScope("usage:read"), keyId, keyUsageRoute(services));
  router.get("/usage.csv", authenticated, requireScope("usage:read"), usageCsvRoute(services));
  router.get("/usage", authenticated, requireScope("usage:read"), usageReportRoute(services));
  router.get("/requests.csv", authenticated, requireScope("usage:read"), requestsCsvRoute(services));
  router.get("/requests", authenticated, requireScope("usage:read"), requestLogRoute(services));
  router.get("/audit-log", authenticated, auditLogRoute(services));
  router.get("/upstreams", authenticated, requireScope("upstreams:read"), upstreamHealthRoute(services));
  // Customers, plans and subscriptions (contract section 19).
  const body = jsonBody(services.config.BODY_LIMIT_BYTES);
  router.post("/customers", authenticated, requireScope("customers:write"), body, createCustomerRoute(services));
  router.get("/customers", authenticated, requireScope("customers:read"), listCustomersRoute(services));
  router.get("/customers/:id", authenticated, requireScope("customers:read"), getCustomerRoute(services));
  router.patch("/customers/:id", authenticated, requireScope("customers:write"), body, updateCustomerRoute(services));
  router.get("/customers/:id/subscriptions", authenticated, requireScope("customers:read"), listSubscriptionsRoute(services));
  router.post("/customers/:id/subscriptions", authenticated, requireScope("plans:write"), body, createSubscriptionRoute(services));
  router.delete("/customers/:id/subscriptions/:sub_id", authenticated, requireScope("plans:write"), cancelSubscriptionRoute(services));
  router.post("/plans", authenticated, requireScope("plans:write"), body, createPlanRoute(services));
  router.get("/plans", authenticated, requireScope("customers:read"), listPlansRoute(services));
  router.get("/plans/:id", authenticated, requireScope("customers:read"), getPlanRoute(services));
  router.post("/webhooks", authenticated, requireScope("webhooks:write"), jsonBody(services.config.BODY_LIMIT_BYTES), createWebhookRoute(services));
  router.get("/webhooks", authenticated, requireScope("webhooks:write"), listWebhooksRoute(services));
  router.get("/webhooks/:id", authenticated, requireScope("webhooks:write"), webhookId, getWebhookRoute(services));
  router.delete("/webhooks/:id", authenticated, requireScope("webhooks:write"), webhookId, deleteWebhookRoute(services));
  router.get("/webhooks/:id/deliveries", authenticated, requireScope("webhooks:write"), webhookId, listDeliveriesRoute(services));
  app.use("/api", router);
}
