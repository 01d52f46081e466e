import type { IncomingMessage, ServerResponse } from "node:http";
import type { NextFunction, Request, Response } from "express";
import { newId } from "@gateway/contracts";

/** What every request carries once it entered the gateway (Express routes and plain node:http ones alike). */
export interface RequestFields {
  requestId: string;
  startedAt: number;
  /** Size of the JSON body as received (set by jsonBody). */
  bodyBytes: number;
  /** The JSON body's bytes as received (set by jsonBody): forwarded as they are when nothing changes. */
  rawBody: Buffer | null;
  /** The parsed JSON body (set by jsonBody). */
  body: unknown;
}

/** A plain node:http request after `beginRequest`. */
export type GatewayRequest = IncomingMessage & RequestFields;

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    // Express types `body` itself.
    interface Request extends Omit<RequestFields, "body"> {}
  }
}

/** Gives a request its id before anything else runs; every response carries it. */
export function beginRequest(request: IncomingMessage, response: ServerResponse): GatewayRequest {
  const gateway = request as GatewayRequest;
  gateway.requestId = newId("req");
  gateway.startedAt = Date.now();
  gateway.bodyBytes = 0;
  gateway.rawBody = null;
  response.setHeader("x-request-id", gateway.requestId);
  return gateway;
}

/** `beginRequest` as the first Express middleware. */
export function requestContext(request: Request, response: Response, next: NextFunction): void {
  beginRequest(request, response);
  next();
}
