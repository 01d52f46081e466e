import type { NextFunction, Request, Response } from "express";
import { GatewayError, hashesEqual, hashSecret } from "@gateway/contracts";
import type { ControlPlaneServices } from "../services.ts";

/**
 * A handler of `/internal/*`, the proxy's own endpoints: refused (401) without the shared
 * `x-internal-token`, compared as hashes in constant time; its errors go to the error middleware.
 */
export function internalRoute(services: ControlPlaneServices, handler: (request: Request, response: Response) => Promise<void>) {
  const expected = hashSecret(services.config.INTERNAL_TOKEN);
  return async (request: Request, response: Response, next: NextFunction): Promise<void> => {
    try {
      const token = request.headers["x-internal-token"];
      if (typeof token !== "string" || !hashesEqual(hashSecret(token), expected)) {
        throw new GatewayError("invalid_vendor_token", "Internal endpoint: bad or missing x-internal-token.");
      }
      await handler(request, response);
    } catch (error) {
      next(error);
    }
  };
}
