import type { RequestListener, ServerResponse } from "node:http";
import { GatewayError } from "@gateway/contracts";
import { Counter, httpMetrics, metricsHandler } from "@gateway/metrics";
import { AuthFailureThrottle, beginRequest, discardBody, readJsonBody, respondWithError, type GatewayRequest } from "@gateway/http";
import type { KeyRecord } from "@gateway/redis-store";
import type { ProxyServices } from "./services.ts";
import { authenticate } from "./auth/authenticate.ts";
import { healthRoute, readyRoute } from "./routes/health.ts";
import { discoveryRoute } from "./routes/v1.ts";
import { getModelRoute, listModelsRoute } from "./routes/v1-models.ts";
import { chatCompletionsRoute } from "./routes/v1-chat-completions.ts";
import { messagesRoute } from "./routes/v1-messages.ts";
import { responsesRoute, responsesWebSocketRoute } from "./routes/v1-responses.ts";
import { responseByIdRoute } from "./routes/v1-responses-id.ts";
import { responsesInputTokensRoute } from "./routes/v1-responses-input-tokens.ts";
import { conversationsReadRoute, conversationsWriteRoute } from "./routes/v1-conversations.ts";
import { imagesGenerationsRoute } from "./routes/v1-images-generations.ts";
import { countTokensRoute } from "./routes/v1-count-tokens.ts";
import { embeddingsRoute } from "./routes/v1-embeddings.ts";
import { usageRoute } from "./routes/v1-usage.ts";
import { redeemRoute } from "./routes/v1-redeem.ts";
import { apiRelayRoute } from "./routes/api-relay.ts";
import { geminiRouter, isGeminiPath } from "./routes/gemini.ts";
import { relayPattern, type RelayPattern } from "./routes/api-relay-request.ts";
import type { KeyedRouteHandler, RouteHandler } from "./routes/route-handler.ts";

/**
 * A route; `pattern` is its metrics label, never the raw path. POST routes (`readsBody`): the key
 * is accepted from the headers, then the JSON body is read (and checked), then the handler runs.
 */
type Route = { pattern: string; handler: RouteHandler; readsBody: false } | { pattern: string; handler: KeyedRouteHandler; readsBody: true };

/**
 * How long the rest of a refused body is read (and dropped) before the connection is cut. Long
 * enough for an honest client's 10 MB upload to finish, so it reads its 401.
 */
const REFUSED_BODY_GRACE_MS = 10_000;

/** `GET /v1/models/{id}`: the id is the rest of the path, and may hold slashes. */
const MODEL_BY_ID = "/v1/models/";
/** Stored responses (`GET`/`DELETE /v1/responses/{id}`, `.../input_items`) and conversations (contract section 18). */
const RESPONSE_BY_ID = "/v1/responses/";
const CONVERSATIONS = "/v1/conversations";

/** The path without query string or trailing slash. */
function pathOf(url: string | undefined): string {
  if (!url) return "/";
  const query = url.indexOf("?");
  const path = query === -1 ? url : url.slice(0, query);
  return path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
}

function decodedId(rest: string): string {
  try {
    return decodeURIComponent(rest);
  } catch {
    return rest;
  }
}

/**
 * The proxy's HTTP surface, where every request enters, in one list. Plain node:http with a `Map`
 * lookup: the model endpoints are the hot path, and a framework's router, request/response
 * decoration and middleware chain cost more per request than the gateway's own work. Paths match
 * in any case and with a trailing slash; HEAD is answered like GET (without a body). `/api/*` and
 * `/console/*` are the control plane's, relayed as they are (`/internal/*` is never). Every request
 * gets its id, is counted in the metrics, and fails with the one error envelope (401s from an
 * address that keeps failing are answered later and later).
 */
export function createProxyHandler(services: ProxyServices): RequestListener {
  const { logger } = services;
  const metrics = httpMetrics(services.registry);
  const throttle = new AuthFailureThrottle({ freeFailures: services.config.AUTH_FREE_FAILURES, windowMs: 60_000, maxDelayMs: 2_000 });
  const bodyLimit = services.config.BODY_LIMIT_BYTES;
  // A parse is the costly part of a body (tens of ms for megabytes): counted, so tests can show
  // that no unauthenticated body is ever parsed.
  const parses = services.registry.getSingleMetric("gateway_request_body_parses_total") as Counter | undefined
    ?? new Counter({ name: "gateway_request_body_parses_total", help: "JSON request bodies read in full and parsed (only ever after the key was accepted).", registers: [services.registry] });
  const bodyOptions = { maxDepth: services.config.JSON_MAX_DEPTH, onParse: () => parses.inc() };

  // By method, then by lower-cased path: no key string made per request.
  const routes = new Map<string, Map<string, Route>>([["GET", new Map()], ["POST", new Map()]]);
  const get = (pattern: string, handler: RouteHandler) => routes.get("GET")!.set(pattern, { pattern, handler, readsBody: false });
  const post = (pattern: string, handler: KeyedRouteHandler) => routes.get("POST")!.set(pattern, { pattern, handler, readsBody: true });
  // Every tenant's traffic and the upstreams' names: on METRICS_PORT only (server.ts), unless asked for.
  if (services.config.METRICS_PUBLIC) get("/metrics", metricsHandler(services.registry));
  get("/healthz", healthRoute);
  get("/readyz", readyRoute(services));
  get("/v1", discoveryRoute(services));
  get("/v1/models", listModelsRoute(services));
  get("/v1/usage", usageRoute(services));
  get("/v1/responses", responsesWebSocketRoute);
  post("/v1/chat/completions", chatCompletionsRoute(services));
  post("/v1/messages", messagesRoute(services));
  post("/v1/responses", responsesRoute(services));
  post("/v1/images/generations", imagesGenerationsRoute(services));
  post("/v1/messages/count_tokens", countTokensRoute(services));
  post("/v1/embeddings", embeddingsRoute(services));
  post("/v1/redeem", redeemRoute(services));
  post("/v1/responses/input_tokens", responsesInputTokensRoute(services));
  // The Gemini API (`/v1beta/models...`, `POST /v1/models/{model}:{method}`): its own key forms and error envelope.
  const gemini = geminiRouter(services, { throttle, bodyLimit, bodyOptions });
  const modelById: Route = { pattern: `${MODEL_BY_ID}*id`, handler: getModelRoute(services), readsBody: false };
  const responseById: Route = { pattern: `${RESPONSE_BY_ID}*id`, handler: responseByIdRoute(services), readsBody: false };
  const conversationsRead: Route = { pattern: `${CONVERSATIONS}/*`, handler: conversationsReadRoute(services), readsBody: false };
  const conversationsWrite: Route = { pattern: `${CONVERSATIONS}/*`, handler: conversationsWriteRoute(services), readsBody: true };
  // The vendor API and console, any method, relayed to the control plane with the body streamed.
  const apiRelay = apiRelayRoute(services);
  const relays: Record<RelayPattern, Route> = {
    "/api/*": { pattern: "/api/*", handler: apiRelay, readsBody: false },
    "/console/*": { pattern: "/console/*", handler: apiRelay, readsBody: false },
    // Stripe's webhook (and any later provider's): the body relayed byte for byte, its signature covers it.
    "/webhooks/*": { pattern: "/webhooks/*", handler: apiRelay, readsBody: false },
  };

  const fail = (request: GatewayRequest, path: string, response: ServerResponse, error: unknown) =>
    throttle.answer(error, services.clientAddress(request), () => respondWithError(logger, request, path, response, error));
  /** A request answered before its body is read: the body is dropped, never buffered. */
  const refuse = (request: GatewayRequest, path: string, response: ServerResponse, error: unknown) => {
    discardBody(request, bodyLimit, REFUSED_BODY_GRACE_MS);
    fail(request, path, response, error);
  };
  const settle = (done: void | Promise<void>, request: GatewayRequest, path: string, response: ServerResponse) => {
    if (done) done.then(undefined, (error: unknown) => fail(request, path, response, error));
  };
  const run = (handler: RouteHandler, request: GatewayRequest, path: string, response: ServerResponse, param: string) => {
    try {
      settle(handler(request, response, param), request, path, response);
    } catch (error) {
      fail(request, path, response, error);
    }
  };
  const runKeyed = (handler: KeyedRouteHandler, request: GatewayRequest, path: string, response: ServerResponse, key: KeyRecord) => {
    try {
      settle(handler(request, response, key), request, path, response);
    } catch (error) {
      fail(request, path, response, error);
    }
  };
  const readBodyThenRun = (handler: KeyedRouteHandler, request: GatewayRequest, path: string, response: ServerResponse, key: KeyRecord) =>
    readJsonBody(request, bodyLimit, (error) => (error ? fail(request, path, response, error) : runKeyed(handler, request, path, response, key)), bodyOptions);
  /**
   * The key first, from the headers alone (contract section 14: bodies are read only after the
   * credential is accepted); at once when this process caches it, so a key in use costs no tick.
   */
  const authenticateThenRead = (handler: KeyedRouteHandler, request: GatewayRequest, path: string, response: ServerResponse) => {
    let key: KeyRecord | Promise<KeyRecord>;
    try {
      key = authenticate(request.headers, services.keyCache);
    } catch (error) {
      refuse(request, path, response, error);
      return;
    }
    if (key instanceof Promise) {
      key.then(
        (found) => readBodyThenRun(handler, request, path, response, found),
        (error: unknown) => refuse(request, path, response, error),
      );
    } else {
      readBodyThenRun(handler, request, path, response, key);
    }
  };

  return (incoming, response) => {
    const request = beginRequest(incoming, response);
    const path = pathOf(request.url);
    const method = request.method === "HEAD" ? "GET" : (request.method ?? "GET");
    const lower = path.toLowerCase();
    let route = routes.get(method)?.get(lower);
    let param = "";
    if (!route && method === "GET" && lower.startsWith(MODEL_BY_ID) && path.length > MODEL_BY_ID.length) {
      route = modelById;
      param = decodedId(path.slice(MODEL_BY_ID.length));
    }
    if (!route && (method === "GET" || method === "DELETE") && lower.startsWith(RESPONSE_BY_ID) && path.length > RESPONSE_BY_ID.length) {
      route = responseById;
      param = decodedId(path.slice(RESPONSE_BY_ID.length));
    }
    if (!route && (lower === CONVERSATIONS || lower.startsWith(`${CONVERSATIONS}/`))) {
      route = method === "POST" ? conversationsWrite : method === "GET" || method === "DELETE" ? conversationsRead : undefined;
    }
    if (!route) {
      const match = gemini.match(method, path);
      if (match) {
        metrics.track(request, response, match.pattern);
        gemini.handle(match, request, response, path);
        return;
      }
      const relay = relayPattern(request.url);
      if (relay) route = relays[relay];
    }
    metrics.track(request, response, route?.pattern ?? "unmatched");
    if (!route) {
      const unknown = new GatewayError("route_not_found", `Unknown route: ${request.method} ${path}`);
      if (isGeminiPath(method, path)) gemini.refuse(request, path, response, unknown);
      else refuse(request, path, response, unknown);
      return;
    }
    if (route.readsBody) authenticateThenRead(route.handler, request, path, response);
    else run(route.handler, request, path, response, param);
  };
}
