import type { NextFunction, Request, Response } from "express";
import { request as httpRequest } from "undici";
import { GatewayError } from "@gateway/contracts";
import type { ProxyServices } from "../services.ts";
import { authenticate } from "../auth/authenticate.ts";

/**
 * GET /v1/usage: the key is checked here, the figures come from the control plane, which reads
 * the ledger (the proxy never touches the database). Not a hot path.
 */
export function usageRoute(services: ProxyServices) {
  return async (request: Request, response: Response, next: NextFunction): Promise<void> => {
    try {
      const key = await authenticate(request.headers, services.keyCache);
      const query = new URLSearchParams();
      for (const name of ["from", "to"]) {
        const value = request.query[name];
        if (typeof value === "string") query.set(name, value);
      }
      const url = new URL(`/internal/keys/${encodeURIComponent(key.id)}/usage?${query}`, services.config.CONTROL_PLANE_URL);
      const upstream = await httpRequest(url, {
        headers: { "x-internal-token": services.config.INTERNAL_TOKEN, "x-request-id": request.requestId },
        headersTimeout: 5_000,
        bodyTimeout: 5_000,
      }).catch((error: unknown) => {
        throw new GatewayError("dependency_unavailable", "Usage is unavailable right now; try again shortly.", { cause: error });
      });
      const text = await upstream.body.text();
      response.status(upstream.statusCode).type("application/json").send(text);
    } catch (error) {
      next(error);
    }
  };
}
