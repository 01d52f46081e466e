import type { NextFunction, Request, Response } from "express";
import { GatewayError } from "@gateway/contracts";
import type { GatewayRequest } from "./request-context.ts";
import { DEFAULT_JSON_MAX_DEPTH, exceedsJsonDepth } from "./json-depth.ts";

const JSON_TYPE = /^application\/(.+\+)?json\b/i;

export interface JsonBodyOptions {
  /** Deepest nesting accepted (contract section 13). */
  maxDepth?: number;
  /** Called once per body read in full, before it is scanned and parsed (the proxy counts parses). */
  onParse?: () => void;
}

/**
 * Reads a JSON body with the size limit and content-type rule of the contract (413, 415, 400), then
 * calls `done` once: with null when `request.body`, `rawBody` and `bodyBytes` are set, else with
 * the error. Hand-rolled rather than express.json so each failure maps to the one envelope and a
 * too-large body is refused from its content-length before any byte is read.
 */
export function readJsonBody(request: GatewayRequest, limitBytes: number, done: (error: GatewayError | null) => void, options: JsonBodyOptions = {}): void {
  const maxDepth = options.maxDepth ?? DEFAULT_JSON_MAX_DEPTH;
  const type = request.headers["content-type"];
  if (!type || !JSON_TYPE.test(type)) {
    done(new GatewayError("unsupported_media_type", "Content-Type must be application/json."));
    return;
  }
  const declared = Number(request.headers["content-length"]);
  if (declared > limitBytes) {
    done(new GatewayError("request_too_large", `Request body is larger than ${limitBytes} bytes.`));
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
      done(new GatewayError("request_too_large", `Request body is larger than ${limitBytes} bytes.`));
      return;
    }
    chunks.push(chunk);
  });
  request.on("end", () => {
    if (failed) return;
    request.bodyBytes = size;
    const raw = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    request.rawBody = raw;
    options.onParse?.();
    if (exceedsJsonDepth(raw, maxDepth)) {
      done(new GatewayError("invalid_json", `The request body nests JSON deeper than ${maxDepth} levels.`, { param: null }));
      return;
    }
    try {
      request.body = JSON.parse(raw.toString("utf8"));
    } catch {
      done(new GatewayError("invalid_json", "The request body is not valid JSON.", { param: null }));
      return;
    }
    done(null);
  });
  request.on("error", (error) => {
    if (!failed) done(new GatewayError("invalid_body", "The request body could not be read.", { cause: error }));
    failed = true;
  });
}

/**
 * `readJsonBody` as Express middleware. With `optional`, a request without a body (no
 * content-length or 0, and not chunked: `curl -X POST` for an action with only optional fields)
 * reads as `{}` whatever its content type.
 */
export function jsonBody(limitBytes: number, options: { optional?: boolean } = {}) {
  return (request: Request, _response: Response, next: NextFunction): void => {
    const length = request.headers["content-length"];
    if (options.optional && (length === undefined || length === "0") && request.headers["transfer-encoding"] === undefined) {
      request.body = {};
      next();
      return;
    }
    readJsonBody(request as unknown as GatewayRequest, limitBytes, (error) => (error ? next(error) : next()));
  };
}
