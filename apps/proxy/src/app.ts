import type { RequestListener } from "node:http";
import express from "express";
import { httpMetrics, metricsHandler } from "@gateway/metrics";
import type { ProxyServices } from "./services.ts";
import { AuthFailureThrottle, beginRequest, errorHandler, notFoundHandler, readJsonBody, requestContext, respondWithError, slowDownAuthFailures } from "@gateway/http";
import { healthRoute, readyRoute } from "./routes/health.ts";
import { discoveryRoute } from "./routes/v1.ts";
import { getModelRoute, listModelsRoute } from "./routes/v1-models.ts";
import { chatCompletionsRoute } from "./routes/v1-chat-completions.ts";
import { messagesRoute } from "./routes/v1-messages.ts";
import { responsesRoute } from "./routes/v1-responses.ts";
import { imagesGenerationsRoute } from "./routes/v1-images-generations.ts";
import { usageRoute } from "./routes/v1-usage.ts";
import type { ModelRoute } from "./routes/relay-route.ts";

/** The path a model route is looked up by: no query, no trailing slash, any case (as Express matches). */
function routeKey(url: string | undefined): string {
  if (!url) return "";
  const query = url.indexOf("?");
  let path = query === -1 ? url : url.slice(0, query);
  if (path.length > 1 && path.endsWith("/")) path = path.slice(0, -1);
  return path.toLowerCase();
}

/**
 * The proxy's HTTP surface: where a request enters, in one list. The model endpoints (the hot
 * path) are served on plain node:http, since Express's router, prototype swaps and middleware
 * chain cost more per request than the rest of the gateway's own work; everything else (health,
 * metrics, discovery, models, usage, 404s) goes through Express. Both share the request id, the
 * metrics, the 401 slow-down and the one error envelope.
 */
export function createProxyHandler(services: ProxyServices): RequestListener {
  const { logger } = services;
  const metrics = httpMetrics(services.registry);
  const throttle = new AuthFailureThrottle({ freeFailures: services.config.AUTH_FREE_FAILURES, windowMs: 60_000, maxDelayMs: 2_000 });

  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.use(requestContext);
  app.use(metrics);
  app.get("/metrics", metricsHandler(services.registry));
  app.get("/healthz", healthRoute);
  app.get("/readyz", readyRoute(services));
  app.get("/v1", discoveryRoute(services));
  app.get("/v1/models", listModelsRoute(services));
  app.get("/v1/models/*id", getModelRoute(services));
  app.get("/v1/usage", usageRoute(services));
  app.use(notFoundHandler);
  app.use(slowDownAuthFailures(throttle));
  app.use(errorHandler(logger));

  const modelRoutes = new Map<string, ModelRoute>([
    ["/v1/chat/completions", chatCompletionsRoute(services)],
    ["/v1/messages", messagesRoute(services)],
    ["/v1/responses", responsesRoute(services)],
    ["/v1/images/generations", imagesGenerationsRoute(services)],
  ]);
  const bodyLimit = services.config.BODY_LIMIT_BYTES;

  return (incoming, response) => {
    const path = incoming.method === "POST" ? routeKey(incoming.url) : "";
    const route = modelRoutes.get(path);
    if (!route) {
      app(incoming, response);
      return;
    }
    const request = beginRequest(incoming, response);
    metrics.track(request, response, path);
    const fail = (error: unknown) => throttle.answer(error, request.socket.remoteAddress, () => respondWithError(logger, request, path, response, error));
    readJsonBody(request, bodyLimit, (error) => {
      if (error) fail(error);
      else route(request, response).catch(fail);
    });
  };
}
