import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import type { Worker } from "bullmq";
import { GatewayError, newId, toEnvelope } from "@gateway/contracts";
import { billingQueueCounts, type BillingQueueCounts } from "./queue-metrics.ts";
import type { BillingWorkerServices } from "./services.ts";
import { metricsHandler, type Registry } from "@gateway/metrics";

export interface HealthState {
  shuttingDown: boolean;
}

/**
 * The worker's only HTTP surface: GET /metrics, GET /healthz (the process is alive) and GET /readyz (Postgres
 * and Redis answer, the worker is consuming, with the queue's counts).
 */
export function createHealthHandler(services: BillingWorkerServices, worker: Worker, state: HealthState, registry: Registry): RequestListener {
  const metrics = metricsHandler(registry);
  return (request, response) => {
    const path = new URL(request.url ?? "/", "http://localhost").pathname;
    if (request.method === "GET" && path === "/metrics") return metrics(request, response);
    if (request.method === "GET" && path === "/healthz") return sendJson(response, 200, { status: "ok" });
    if (request.method === "GET" && path === "/readyz") return void readiness(services, worker, state).then(
      (body) => sendJson(response, body.status === "ok" ? 200 : 503, body),
      () => sendJson(response, 503, { status: "unavailable" }),
    );
    notFound(request, response);
  };
}

async function readiness(services: BillingWorkerServices, worker: Worker, state: HealthState) {
  const [database, redis] = await Promise.all([
    services.db.prisma.$queryRaw`SELECT 1`.then(() => true, () => false),
    services.redis.ping().then(() => true, () => false),
  ]);
  const consuming = worker.isRunning() && !state.shuttingDown;
  const queue: BillingQueueCounts | null = redis ? await billingQueueCounts(services.queue).catch(() => null) : null;
  const ready = database && redis && consuming;
  return { status: ready ? "ok" : "unavailable", checks: { database, redis, consuming }, queue };
}

function notFound(request: IncomingMessage, response: ServerResponse): void {
  const requestId = newId("req");
  const error = new GatewayError("route_not_found", `No route for ${request.method ?? "GET"} ${request.url ?? "/"}.`);
  response.setHeader("x-request-id", requestId);
  sendJson(response, error.status, toEnvelope(error, requestId));
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json; charset=utf-8" });
  response.end(JSON.stringify(body));
}
