import type { ServerResponse } from "node:http";
import type { NextFunction, Request, Response } from "express";
import { asGatewayError, GatewayError, newId } from "@gateway/contracts";
import type { Logger } from "@gateway/logger";
import { sendError } from "./send-error.ts";

/** Anything thrown while serving a request ends here as the contract's envelope (5xx logged). */
export function respondWithError(logger: Logger, request: { requestId?: string }, path: string, response: ServerResponse, error: unknown): void {
  const requestId = request.requestId ?? newId("req");
  const gatewayError = asGatewayError(error);
  if (gatewayError.status >= 500) {
    logger.error({ requestId, err: error, path }, "request failed");
  }
  sendError(response, gatewayError, requestId);
}

/** The one Express error middleware: `respondWithError` for every route. */
export function errorHandler(logger: Logger) {
  return (error: unknown, request: Request, response: Response, _next: NextFunction): void => {
    respondWithError(logger, request, request.path, response, error);
  };
}

/** Not found for every unknown route, in the same envelope. */
export function notFoundHandler(request: Request, _response: Response, next: NextFunction): void {
  next(new GatewayError("route_not_found", `Unknown route: ${request.method} ${request.path}`));
}
