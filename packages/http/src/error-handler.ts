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

/**
 * Express's own client errors carry a 4xx `status` (a path parameter that is not valid
 * percent-encoding is a URIError with status 400): they are the client's fault, never a 500.
 */
function fromFramework(error: unknown): unknown {
  if (error instanceof GatewayError || typeof error !== "object" || error === null) return error;
  const status = (error as { status?: unknown }).status;
  if (typeof status !== "number" || status < 400 || status >= 500) return error;
  const message = error instanceof URIError ? "The request path is not valid percent-encoding." : "The request could not be read.";
  return new GatewayError("invalid_body", message, { param: error instanceof URIError ? "path" : null, cause: error });
}

/** The one Express error middleware: `respondWithError` for every route. */
export function errorHandler(logger: Logger) {
  return (error: unknown, request: Request, response: Response, _next: NextFunction): void => {
    respondWithError(logger, request, request.path, response, fromFramework(error));
  };
}

/** Not found for every unknown route, in the same envelope. */
export function notFoundHandler(request: Request, _response: Response, next: NextFunction): void {
  next(new GatewayError("route_not_found", `Unknown route: ${request.method} ${request.path}`));
}
