import type { ServerResponse } from "node:http";
import { sendJson, type GatewayRequest } from "@gateway/http";
import { GatewayError } from "@gateway/contracts";
import type { ProxyServices } from "../services.ts";
import { authenticate } from "../auth/authenticate.ts";

/**
 * GET /v1/usage: the key is checked here, the figures come from the control plane, which reads
 * the ledger (the proxy never touches the database). Not a hot path.
 */
export function usageRoute(services: ProxyServices) {
  return async (request: GatewayRequest, response: ServerResponse): Promise<void> => {
    const key = await authenticate(request.headers, services.keyCache);
    const asked = new URL(request.url ?? "/", "http://proxy").searchParams;
    const query = new URLSearchParams();
    for (const name of ["from", "to"]) {
      const value = asked.get(name);
      if (value !== null) query.set(name, value);
    }
    // The usage pool: never queued behind relayed /api uploads (services.ts).
    const upstream = await services.controlPlane.usage.request({
      path: `/internal/keys/${encodeURIComponent(key.id)}/usage?${query}`,
      method: "GET",
      headers: { "x-internal-token": services.config.INTERNAL_TOKEN, "x-request-id": request.requestId },
      headersTimeout: 5_000,
      bodyTimeout: 5_000,
    }).catch((error: unknown) => {
      throw new GatewayError("dependency_unavailable", "Usage is unavailable right now; try again shortly.", { cause: error });
    });
    sendJson(response, upstream.statusCode, await upstream.body.text());
  };
}
