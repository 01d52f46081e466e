import type { NextFunction, Request, Response } from "express";
import { asGatewayError, GatewayError, newId } from "@gateway/contracts";
import type { Logger } from "@gateway/logger";
import { sendError } from "./send-error.ts";

/** The one error middleware: anything thrown on any route ends as the contract's envelope. */
export function errorHandler(logger: Logger) {
  return (error: unknown, request: Request, response: Response, _next: NextFunction): void => {
    const requestId = request.requestId ?? newId("req");
    const gatewayError = asGatewayError(error);
    if (gatewayError.status >= 500) {
      logger.error({ requestId, err: error, path: request.path }, "request failed");
    }
    sendError(response, gatewayError, requestId);
  };
}

/** Not found for every unknown route, in the same envelope. */
export function notFoundHandler(request: Request, _response: Response, next: NextFunction): void {
  next(new GatewayError("route_not_found", `Unknown route: ${request.method} ${request.path}`));
}
