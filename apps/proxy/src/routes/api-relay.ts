import type { ServerResponse } from "node:http";
import { pipeline } from "node:stream/promises";
import type { Dispatcher } from "undici";
import { GatewayError } from "@gateway/contracts";
import { discardBody, type GatewayRequest } from "@gateway/http";
import type { ProxyServices } from "../services.ts";
import type { RouteHandler } from "./route-handler.ts";
import { requestHeaders, responseHeaders } from "./api-relay-request.ts";
import { relayedBody, type RelayedBody } from "./api-relay-body.ts";
import { VendorConcurrency } from "./api-relay-concurrency.ts";

/** Seconds a client is told to wait when the control plane cannot be reached. */
const RETRY_AFTER_SECONDS = 2;
/** Seconds a vendor over its share of concurrent relayed requests is told to wait. */
const BUSY_RETRY_AFTER_SECONDS = 1;

const tooLarge = (limit: number) => new GatewayError("request_too_large", `Request body is larger than ${limit} bytes.`);

/**
 * `/api/*` and `/console/*`, any method: the vendor API and console answer on the proxy's address
 * too (contract section 8), relayed to the control plane as they are. The body is streamed, never
 * parsed (only counted against BODY_LIMIT_BYTES); status, headers and body come back unchanged,
 * the control plane's own envelopes included. The control plane sees the client's address in
 * `x-forwarded-for` and uses the proxy's request id, so the client reads one id in the header and
 * in any envelope. A control plane that is down or does not answer in time is a 503
 * `control_plane_unavailable`; `/v1/*` never depends on it.
 *
 * No client can crash or stall the process through it (contract section 14): the relay has its own
 * pool (services.ts), each vendor a bounded share of it (429), a body that pauses longer than
 * CONTROL_PLANE_BODY_TIMEOUT_MS ends the relay (408), and a client that leaves at any point ends
 * only its own request.
 */
export function apiRelayRoute(services: ProxyServices): RouteHandler {
  const { config, logger } = services;
  const pool = services.controlPlane.relay;
  const limit = config.BODY_LIMIT_BYTES;
  const timeout = config.CONTROL_PLANE_TIMEOUT_MS;
  const bodyIdleMs = config.CONTROL_PLANE_BODY_TIMEOUT_MS;
  const vendors = new VendorConcurrency(config.API_RELAY_VENDOR_CONCURRENCY);

  return async (request: GatewayRequest, response: ServerResponse): Promise<void> => {
    const declared = Number(request.headers["content-length"]);
    if (declared > limit) {
      // Dropped as it comes (for at most the body timeout), so the client reads its 413.
      discardBody(request, declared, bodyIdleMs);
      throw tooLarge(limit);
    }
    const bucket = vendors.bucketOf(request.headers);
    if (!vendors.acquire(bucket)) {
      discardBody(request, limit, bodyIdleMs);
      throw new GatewayError("rate_limit_exceeded", "Too many vendor API requests open at once with this credential; retry shortly.", {
        retryAfter: BUSY_RETRY_AFTER_SECONDS,
      });
    }
    // Every response closes once (answered, or the client left): the slot goes back then.
    response.once("close", () => vendors.release(bucket));
    const hasBody = declared > 0 || request.headers["transfer-encoding"] !== undefined;
    const body = hasBody ? relayedBody(request, limit, bodyIdleMs) : null;
    if (!body) request.resume();
    // The client left: the control plane's work for it stops too (a queued request leaves the pool's queue).
    const abort = new AbortController();
    response.once("close", () => {
      if (!response.writableFinished) abort.abort();
    });

    let answer: Dispatcher.ResponseData;
    try {
      answer = await pool.request({
        path: request.url ?? "/",
        method: (request.method ?? "GET") as Dispatcher.HttpMethod,
        headers: requestHeaders(request.headers, request.requestId, services.clientAddress(request)),
        // undici sends any async iterable (lib/dispatcher/client-h1.js, writeIterable); its types list only streams.
        body: (body?.chunks ?? null) as Dispatcher.RequestOptions["body"],
        signal: abort.signal,
        headersTimeout: timeout,
        bodyTimeout: timeout,
      });
    } catch (error) {
      if (abort.signal.aborted) return;
      throw stoppedBodyError(body, request, response, limit, bodyIdleMs) ?? new GatewayError("control_plane_unavailable", "The vendor API is unavailable right now; try again shortly.", {
        retryAfter: RETRY_AFTER_SECONDS,
        cause: error,
      });
    }

    // The control plane may answer before the whole body came (a 401 on the head alone): the rest
    // is not read, so the connection closes after the answer instead of waiting for it.
    if (hasBody && !request.complete) response.shouldKeepAlive = false;
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
 * The client's error when the relay ended its body: over the limit (413; the rest is read and
 * dropped so the client reads the answer), or paused too long (408; the connection closes after
 * the answer, the rest never read).
 */
function stoppedBodyError(body: RelayedBody | null, request: GatewayRequest, response: ServerResponse, limit: number, idleMs: number): GatewayError | null {
  switch (body?.stopped() ?? null) {
    case "too_large":
      discardBody(request, limit, idleMs);
      return tooLarge(limit);
    case "timed_out":
      response.shouldKeepAlive = false;
      return new GatewayError("request_timeout", `The request body paused for longer than ${idleMs} ms.`);
    case null:
      return null;
  }
}
