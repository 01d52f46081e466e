import type { NextFunction, Request, Response } from "express";
import { GatewayError } from "@gateway/contracts";

/**
 * Reads a JSON body with the size limit and content-type rule of the contract (413, 415, 400).
 * Hand-rolled rather than express.json so each failure maps to the one envelope and a too-large
 * body is refused from its content-length before any byte is read.
 */
export function jsonBody(limitBytes: number) {
  return (request: Request, _response: Response, next: NextFunction): void => {
    const type = request.headers["content-type"];
    if (!type || !/^application\/(.+\+)?json\b/i.test(type)) {
      next(new GatewayError("unsupported_media_type", "Content-Type must be application/json."));
      return;
    }
    const declared = Number(request.headers["content-length"]);
    if (declared > limitBytes) {
      next(new GatewayError("request_too_large", `Request body is larger than ${limitBytes} bytes.`));
      request.resume();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    request.on("data", (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > limitBytes) {
        failed = true;
        next(new GatewayError("request_too_large", `Request body is larger than ${limitBytes} bytes.`));
        return;
      }
      chunks.push(chunk);
    });
    request.on("end", () => {
      if (failed) return;
      request.bodyBytes = size;
      const raw = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
      request.rawBody = raw;
      try {
        request.body = JSON.parse(raw.toString("utf8"));
      } catch {
        next(new GatewayError("invalid_json", "The request body is not valid JSON.", { param: null }));
        return;
      }
      next();
    });
    request.on("error", (error) => {
      if (!failed) next(new GatewayError("invalid_body", "The request body could not be read.", { cause: error }));
      failed = true;
    });
  };
}
