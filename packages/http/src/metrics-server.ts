import type { RequestListener } from "node:http";
import { GatewayError } from "@gateway/contracts";
import { beginRequest } from "./request-context.ts";
import { sendError } from "./send-error.ts";
import { listen, type Listening } from "./listen.ts";

/**
 * `GET /metrics` on a port of its own (`METRICS_PORT`), so the serving port (public, for the
 * proxy) does not show the process's metrics to the world; anything else there is the 404 envelope.
 */
export function listenMetrics(metrics: RequestListener, port: number, host: string): Promise<Listening> {
  return listen((request, response) => {
    const path = (request.url ?? "/").split("?")[0];
    if ((request.method === "GET" || request.method === "HEAD") && path === "/metrics") return metrics(request, response);
    const gateway = beginRequest(request, response);
    request.resume();
    sendError(response, new GatewayError("route_not_found", `Unknown route: ${request.method} ${path}`), gateway.requestId);
  }, port, host);
}
