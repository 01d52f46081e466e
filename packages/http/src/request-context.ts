import type { NextFunction, Request, Response } from "express";
import { newId } from "@gateway/contracts";

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      requestId: string;
      startedAt: number;
      /** Size of the JSON body as received (set by jsonBody). */
      bodyBytes: number;
      /** The JSON body's bytes as received (set by jsonBody): forwarded as they are when nothing changes. */
      rawBody: Buffer | null;
    }
  }
}

/** Gives every request its id before anything else runs; every response carries it. */
export function requestContext(request: Request, response: Response, next: NextFunction): void {
  request.requestId = newId("req");
  request.startedAt = Date.now();
  request.bodyBytes = 0;
  request.rawBody = null;
  response.setHeader("x-request-id", request.requestId);
  next();
}
