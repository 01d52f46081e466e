import type { ServerResponse } from "node:http";
import { GatewayError } from "@gateway/contracts";
import { sendJson, type GatewayRequest } from "@gateway/http";
import type { KeyRecord } from "@gateway/redis-store";
import type { ProxyServices } from "../services.ts";

/** Longer than any code the gateway mints (`rc_` + 33 characters); anything longer is no code. */
const MAX_CODE_LENGTH = 200;

/**
 * POST /v1/redeem `{"code":"rc_..."}`: a key holder credits its customer's wallet with a
 * redemption code (contract section 19). The key is accepted here from the proxy's own cache
 * (app.ts, before the body is read); the code is claimed by the control plane, which owns the
 * database, over the usage pool (never queued behind relayed /api uploads). Its answer, 200
 * `{"object":"redemption","amount","balance"}` or the 400 `code_invalid` envelope, is passed on.
 */
export function redeemRoute(services: ProxyServices) {
  return async (request: GatewayRequest, response: ServerResponse, key: KeyRecord): Promise<void> => {
    const body = request.body as { code?: unknown } | null;
    const code = typeof body === "object" && body !== null ? body.code : undefined;
    if (typeof code !== "string" || code.length === 0 || code.length > MAX_CODE_LENGTH) {
      throw new GatewayError("invalid_body", "code: a redemption code (rc_...) as a string is required", { param: "code" });
    }
    const upstream = await services.controlPlane.usage
      .request({
        path: "/internal/redeem",
        method: "POST",
        headers: { "content-type": "application/json", "x-internal-token": services.config.INTERNAL_TOKEN, "x-request-id": request.requestId },
        body: JSON.stringify({ key_id: key.id, code }),
        headersTimeout: 10_000,
        bodyTimeout: 10_000,
      })
      .catch((error: unknown) => {
        throw new GatewayError("dependency_unavailable", "Redemption is unavailable right now; try again shortly.", { cause: error, retryAfter: 2 });
      });
    sendJson(response, upstream.statusCode, await upstream.body.text());
  };
}
