import type { Request, Response } from "express";
import type { ProxyServices } from "../services.ts";

/** GET /healthz: the process is alive. */
export function healthRoute(_request: Request, response: Response): void {
  response.json({ status: "ok" });
}

/** GET /readyz: Redis answers, a routing snapshot is loaded, and we are not shutting down. */
export function readyRoute(services: ProxyServices) {
  return (_request: Request, response: Response): void => {
    const checks = {
      redis: services.redis.status === "ready",
      routing: services.routing.loaded,
      accepting: !services.state.shuttingDown,
    };
    const ready = checks.redis && checks.routing && checks.accepting;
    response.status(ready ? 200 : 503).json({ status: ready ? "ok" : "unavailable", checks });
  };
}
