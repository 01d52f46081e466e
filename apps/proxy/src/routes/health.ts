import type { ServerResponse } from "node:http";
import { sendJson } from "@gateway/http";
import type { ProxyServices } from "../services.ts";

/** GET /healthz: the process is alive. */
export function healthRoute(_request: unknown, response: ServerResponse): void {
  sendJson(response, 200, { status: "ok" });
}

/** GET /readyz: Redis answers, a routing snapshot is loaded, and we are not shutting down. */
export function readyRoute(services: ProxyServices) {
  return (_request: unknown, response: ServerResponse): void => {
    const checks = {
      redis: services.redis.status === "ready",
      routing: services.routing.loaded,
      accepting: !services.state.shuttingDown,
    };
    const ready = checks.redis && checks.routing && checks.accepting;
    sendJson(response, ready ? 200 : 503, { status: ready ? "ok" : "unavailable", checks });
  };
}
