import type { IncomingMessage, ServerResponse } from "node:http";
import type { NextFunction, Request, Response } from "express";
import { newId } from "@gateway/contracts";
import { addHead } from "./gateway-response.ts";

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

/** `req_` and up to 64 letters, digits, `_` or `-`: what `newId("req")` makes, with room to spare. */
const FORWARDED_REQUEST_ID = /^req_[A-Za-z0-9_-]{1,64}$/;

/** The `x-request-id` header when it is a well-formed request id, else null (junk is never echoed). */
export function forwardedRequestId(header: string | string[] | undefined): string | null {
  return typeof header === "string" && FORWARDED_REQUEST_ID.test(header) ? header : null;
}

/** Gives a request its id (a new one unless given) before anything else runs; every response carries it. */
export function beginRequest(request: IncomingMessage, response: ServerResponse, requestId = newId("req")): GatewayRequest {
  const gateway = request as GatewayRequest;
  gateway.requestId = requestId;
  gateway.startedAt = Date.now();
  gateway.bodyBytes = 0;
  gateway.rawBody = null;
  addHead(response, "x-request-id", gateway.requestId);
  return gateway;
}

/**
 * `beginRequest` as the first Express middleware. A request relayed by a trusted proxy (the app's
 * `trust proxy` setting, which also decides whose `x-forwarded-for` counts) keeps the proxy's
 * `x-request-id`, so the envelope's `request_id` is the id the client saw; anyone else gets a new one.
 */
export function requestContext(request: Request, response: Response, next: NextFunction): void {
  const trusted = request.app.get("trust proxy fn") as ((address: string, hop: number) => boolean) | undefined;
  const fromProxy = trusted !== undefined && trusted(request.socket.remoteAddress ?? "", 0);
  const forwarded = fromProxy ? forwardedRequestId(request.headers["x-request-id"]) : null;
  beginRequest(request, response, forwarded ?? newId("req"));
  next();
}
