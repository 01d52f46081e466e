import type { NextFunction, Request, Response } from "express";
import { GatewayError, hashesEqual, hashSecret } from "@gateway/contracts";
import type { ControlPlaneServices } from "../services.ts";
import { parseInput } from "../vendors/parse-input.ts";
import { redeemCode } from "../wallet/redemption-codes.ts";
import { internalRedeemBodySchema } from "../wallet/wallet-schemas.ts";

/**
 * POST /internal/redeem `{"key_id","code"}` with the shared internal token: the proxy's
 * `POST /v1/redeem` asks here once it has accepted the key from its own cache (the proxy never
 * touches the database). Answers `{"object":"redemption","amount","balance"}`.
 */
export function internalRedeemRoute(services: ControlPlaneServices) {
  const target = { redis: services.redis, prefix: services.config.REDIS_PREFIX };
  return async (request: Request, response: Response): Promise<void> => {
    const body = parseInput(internalRedeemBodySchema, request.body, "body");
    response.json(await redeemCode(services.db.prisma, target, body.key_id, body.code));
  };
}

/** The shared internal token, checked before the body is read. */
export function internalToken(services: ControlPlaneServices) {
  const expected = hashSecret(services.config.INTERNAL_TOKEN);
  return (request: Request, _response: Response, next: NextFunction): void => {
    const token = request.headers["x-internal-token"];
    if (typeof token !== "string" || !hashesEqual(hashSecret(token), expected)) {
      throw new GatewayError("invalid_vendor_token", "Internal endpoint: bad or missing x-internal-token.");
    }
    next();
  };
}
