import type { NextFunction, Request, Response } from "express";
import { asGatewayError, GatewayError, newId } from "@gateway/contracts";
import type { Logger } from "@gateway/logger";
import { sendError } from "./send-error.ts";

/** The one error middleware: anything thrown on any route ends as the contract's envelope. */
export function errorHandler(logger: Logger) {
  return (error: unknown, request: Request, response: Response, _next: NextFunction): void => {
    const requestId = request.requestId ?? newId("req");
    const gatewayError = isBodyParserError(error) ? fromBodyParser(error) : asGatewayError(error);
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

function isBodyParserError(error: unknown): error is { type: string; status: number } {
  return typeof error === "object" && error !== null && "type" in error && "status" in error && typeof (error as { type: unknown }).type === "string";
}

function fromBodyParser(error: { type: string; status: number }): GatewayError {
  if (error.status === 413) return new GatewayError("request_too_large", "Request body is too large.");
  if (error.status === 415) return new GatewayError("unsupported_media_type", "Content-Type must be application/json.");
  return new GatewayError("invalid_json", "The request body is not valid JSON.");
}
