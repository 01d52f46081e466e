import express, { type Express } from "express";
import { httpMetrics, metricsHandler } from "@gateway/metrics";
import type { ProxyServices } from "./services.ts";
import { errorHandler, jsonBody, notFoundHandler, requestContext, slowDownAuthFailures } from "@gateway/http";
import { healthRoute, readyRoute } from "./routes/health.ts";
import { discoveryRoute } from "./routes/v1.ts";
import { getModelRoute, listModelsRoute } from "./routes/v1-models.ts";
import { chatCompletionsRoute } from "./routes/v1-chat-completions.ts";
import { messagesRoute } from "./routes/v1-messages.ts";
import { responsesRoute } from "./routes/v1-responses.ts";
import { imagesGenerationsRoute } from "./routes/v1-images-generations.ts";
import { usageRoute } from "./routes/v1-usage.ts";

/** The proxy's HTTP surface: where a request enters, in one list. */
export function createProxyApp(services: ProxyServices): Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.use(requestContext);
  app.use(httpMetrics(services.registry));
  app.get("/metrics", metricsHandler(services.registry));
  app.get("/healthz", healthRoute);
  app.get("/readyz", readyRoute(services));
  app.get("/v1", discoveryRoute(services));
  app.get("/v1/models", listModelsRoute(services));
  app.get("/v1/models/*id", getModelRoute(services));
  app.get("/v1/usage", usageRoute(services));
  const body = jsonBody(services.config.BODY_LIMIT_BYTES);
  app.post("/v1/chat/completions", body, chatCompletionsRoute(services));
  app.post("/v1/messages", body, messagesRoute(services));
  app.post("/v1/responses", body, responsesRoute(services));
  app.post("/v1/images/generations", body, imagesGenerationsRoute(services));
  app.use(notFoundHandler);
  app.use(slowDownAuthFailures({ freeFailures: services.config.AUTH_FREE_FAILURES, windowMs: 60_000, maxDelayMs: 2_000 }));
  app.use(errorHandler(services.logger));
  return app;
}
