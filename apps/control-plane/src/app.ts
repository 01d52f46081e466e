import express, { type Express } from "express";
import { errorHandler, notFoundHandler, requestContext, slowDownAuthFailures } from "@gateway/http";
import { createRegistry, httpMetrics, metricsHandler } from "@gateway/metrics";
import type { ControlPlaneServices } from "./services.ts";
import { healthRoute, readyRoute } from "./routes/health.ts";
import { internalKeyUsageRoute } from "./routes/internal-key-usage.ts";
import { internalConversationRoute, internalStoredResponseRoute } from "./routes/internal-responses.ts";
import { mountVendorApi } from "./routes/vendor-api.ts";
import { consoleRouter } from "./routes/console.ts";
import { mountWalletRoutes } from "./wallet/mount-wallet-routes.ts";

/** The control plane's HTTP surface: health, the vendor API (/api) and internal endpoints. */
export function createControlPlaneApp(services: ControlPlaneServices, state: { shuttingDown: boolean }): Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  // The proxy relays /api and /console with the client's address in x-forwarded-for (rate of auth
  // failures) and its own x-request-id; both are believed only from these peers.
  app.set("trust proxy", services.config.TRUST_PROXY);
  app.use(requestContext);
  const registry = createRegistry("control-plane");
  app.use(httpMetrics(registry));
  app.get("/metrics", metricsHandler(registry));
  app.get("/healthz", healthRoute);
  app.get("/readyz", readyRoute(services, state));
  app.get("/internal/keys/:id/usage", internalKeyUsageRoute(services));
  app.get("/internal/vendors/:vendor/responses/:id", internalStoredResponseRoute(services));
  app.get("/internal/vendors/:vendor/conversations/:id", internalConversationRoute(services));
  mountVendorApi(app, services);
  mountWalletRoutes(app, services);
  app.use("/console", consoleRouter());
  app.use(notFoundHandler);
  app.use(slowDownAuthFailures({ freeFailures: services.config.AUTH_FREE_FAILURES, windowMs: 60_000, maxDelayMs: 2_000 }));
  app.use(errorHandler(services.logger));
  return app;
}
