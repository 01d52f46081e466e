import type { ServerResponse } from "node:http";
import { Transform, type Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Dispatcher } from "undici";
import { GatewayError } from "@gateway/contracts";
import type { GatewayRequest } from "@gateway/http";
import type { ProxyServices } from "../services.ts";
import type { RouteHandler } from "./route-handler.ts";
import { requestHeaders, responseHeaders } from "./api-relay-request.ts";

/** Seconds a client is told to wait when the control plane cannot be reached. */
const RETRY_AFTER_SECONDS = 2;

const tooLarge = (limit: number) => new GatewayError("request_too_large", `Request body is larger than ${limit} bytes.`);

/**
 * `/api/*` and `/console/*`, any method: the vendor API and console answer on the proxy's address
 * too (contract section 8), relayed to the control plane as they are. The body is streamed, never
 * parsed (only counted against BODY_LIMIT_BYTES); status, headers and body come back unchanged,
 * the control plane's own envelopes included. The control plane sees the client's address in
 * `x-forwarded-for` and uses the proxy's request id, so the client reads one id in the header and
 * in any envelope. A control plane that is down or does not answer in time is a 503
 * `control_plane_unavailable`; `/v1/*` never depends on it.
 */
export function apiRelayRoute(services: ProxyServices): RouteHandler {
  const { config, controlPlane, logger } = services;
  const limit = config.BODY_LIMIT_BYTES;
  const timeout = config.CONTROL_PLANE_TIMEOUT_MS;

  return async (request: GatewayRequest, response: ServerResponse): Promise<void> => {
    const declared = Number(request.headers["content-length"]);
    if (declared > limit) {
      request.resume();
      throw tooLarge(limit);
    }
    const hasBody = declared > 0 || request.headers["transfer-encoding"] !== undefined;
    const body = hasBody ? countedBody(request, limit) : null;
    if (!body) request.resume();
    // The client left: the control plane's work for it stops too.
    const abort = new AbortController();
    response.once("close", () => {
      if (!response.writableFinished) abort.abort();
    });

    let answer: Dispatcher.ResponseData;
    try {
      answer = await controlPlane.request({
        path: request.url ?? "/",
        method: (request.method ?? "GET") as Dispatcher.HttpMethod,
        headers: requestHeaders(request.headers, request.requestId, services.clientAddress(request)),
        body: body?.stream ?? null,
        signal: abort.signal,
        headersTimeout: timeout,
        bodyTimeout: timeout,
      });
    } catch (error) {
      if (body?.exceeded()) throw tooLarge(limit);
      if (abort.signal.aborted) return;
      throw new GatewayError("control_plane_unavailable", "The vendor API is unavailable right now; try again shortly.", {
        retryAfter: RETRY_AFTER_SECONDS,
        cause: error,
      });
    }

    response.writeHead(answer.statusCode, responseHeaders(answer.headers));
    try {
      await pipeline(answer.body, response);
    } catch (error) {
      // The head is sent: a cut body can only end the client's response (pipeline closed it).
      if (!abort.signal.aborted) logger.warn({ requestId: request.requestId, err: (error as Error).message }, "control plane response cut");
    }
  };
}

/**
 * The request body as it arrives, counted: past `limit` the count stops the relay (the caller
 * answers 413) and the rest of the body is read and dropped, so the answer can still be written.
 */
function countedBody(request: GatewayRequest, limit: number): { stream: Readable; exceeded(): boolean } {
  let size = 0;
  let over = false;
  const counted = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.length;
      if (size <= limit) {
        callback(null, chunk);
        return;
      }
      over = true;
      request.unpipe(counted);
      request.resume();
      callback(tooLarge(limit));
    },
  });
  // A client that breaks off mid-body ends the relayed body with the same error.
  request.once("error", (error) => counted.destroy(error));
  request.pipe(counted);
  return { stream: counted, exceeded: () => over };
}
