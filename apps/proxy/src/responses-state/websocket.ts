import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import { createParser } from "eventsource-parser";
import { WebSocketServer, type RawData, type WebSocket } from "ws";
import { asGatewayError, GatewayError, newId, toEnvelope } from "@gateway/contracts";
import { Pool } from "../relay/undici-pool.ts";
import type { ProxyServices } from "../services.ts";
import { authenticate, presentedKey } from "../auth/authenticate.ts";
import { inputItems, upstreamItems, type Item } from "./items.ts";

const PATH = "/v1/responses";
/** Responses a socket remembers for `previous_response_id` (Codex continues only the last one). */
const REMEMBERED = 4;

export interface ResponsesWebSocket {
  /**
   * Stops taking upgrades (503), lets every socket's running and queued responses finish, up to
   * `deadlineMs`, then ends the sockets (1001, going away).
   */
  close(deadlineMs: number): Promise<void>;
}

/** The path of an upgrade request, lower-cased, without query or trailing slash. */
function pathOf(url: string | undefined): string {
  const path = (url ?? "/").split("?")[0]!.toLowerCase();
  return path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
}

/** An upgrade refused with the one error envelope, as plain HTTP on the raw socket. */
function refuse(socket: Duplex, error: GatewayError): void {
  const body = JSON.stringify(toEnvelope(error, newId("req")));
  const reason = error.status === 401 ? "Unauthorized" : error.status === 404 ? "Not Found" : "Error";
  socket.end(`HTTP/1.1 ${error.status} ${reason}\r\nconnection: close\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
}

/** The `error` frame of a failed response (or a bad frame): the envelope, with the HTTP status it would have had. */
function errorFrame(error: GatewayError, requestId: string): string {
  return JSON.stringify({ ...toEnvelope(error, requestId), status: error.status });
}

/**
 * Responses over WebSocket on `GET /v1/responses` (contract section 18; Codex's built-in provider,
 * `OpenAI-Beta: responses_websockets=...`). The `ws` package serves the protocol (noServer: the
 * proxy's own server hands it the upgrades of this path; every other upgrade is refused with the
 * envelope). The key is checked at the upgrade, then again with each response.
 *
 * Each client frame `{"type": "response.create", ...}` (the fields of a Responses request; a
 * nested `response` object is accepted too) runs exactly as `POST /v1/responses` with
 * `stream: true`: it is sent to this proxy's own HTTP port over loopback, with the socket's
 * credential, so the key check, limits, stored state (`previous_response_id` across frames),
 * failover, billing (once per response) and metrics are the HTTP path's own, not a second copy
 * of them. The stream's events come back as JSON text frames. Responses run one after another
 * in the order their frames came. As over OpenAI's WebSocket, a socket remembers its last few
 * `store: false` responses (in memory, for its life), so `previous_response_id` continues them,
 * as Codex sends it (continueOnSocket). A frame that is not JSON or not a known type, and every failed
 * response (a revoked key's: 401), is an `error` frame and the socket stays open; a frame larger
 * than BODY_LIMIT_BYTES closes the socket with 1009 (ws's maxPayload).
 */
export function serveResponsesWebSocket(server: Server, services: ProxyServices, selfUrl: string): ResponsesWebSocket {
  const wss = new WebSocketServer({ noServer: true, maxPayload: services.config.BODY_LIMIT_BYTES, perMessageDeflate: false });
  const loopback = new Pool(selfUrl, { connections: 64, keepAliveTimeout: 30_000 });
  const { logger } = services;
  /** Each open socket's chain of responses (settled when it is idle). */
  const sessions = new Map<WebSocket, () => Promise<void>>();
  let closing = false;

  server.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on("error", () => socket.destroy());
    if (closing) {
      refuse(socket, new GatewayError("dependency_unavailable", "The gateway is shutting down; connect again."));
      return;
    }
    if (request.method !== "GET" || pathOf(request.url) !== PATH || (request.headers.upgrade ?? "").toLowerCase() !== "websocket") {
      refuse(socket, new GatewayError("route_not_found", `Unknown route: ${request.method} ${(request.url ?? "/").split("?")[0]} (upgrade)`));
      return;
    }
    let key: ReturnType<typeof authenticate>;
    try {
      key = authenticate(request.headers, services.keyCache);
    } catch (error) {
      refuse(socket, asGatewayError(error));
      return;
    }
    Promise.resolve(key).then(
      () => wss.handleUpgrade(request, socket, head, (ws) => session(ws, presentedKey(request.headers)!, services.clientAddress(request))),
      (error: unknown) => refuse(socket, asGatewayError(error)),
    );
  });

  /**
   * One socket. Its responses reach this proxy over loopback with the socket's client address in
   * `x-forwarded-for` (loopback is trusted by default, `TRUST_PROXY`), so the refused-key throttle
   * slows that client, not every socket at once.
   */
  function session(ws: WebSocket, credential: string, clientAddress: string): void {
    let current: AbortController | null = null;
    let queue: Promise<void> = Promise.resolve();
    const remembered = new Map<string, Item[]>();
    ws.on("message", (data: RawData, isBinary: boolean) => {
      queue = queue.then(() => respond(ws, data, isBinary, credential, clientAddress, remembered, (abort) => (current = abort)));
    });
    sessions.set(ws, () => queue);
    ws.on("close", () => {
      sessions.delete(ws);
      current?.abort();
    });
    ws.on("error", (error: Error) => logger.warn({ err: error.message }, "responses websocket error"));
  }

  async function respond(ws: WebSocket, data: RawData, isBinary: boolean, credential: string, clientAddress: string, remembered: Map<string, Item[]>, track: (abort: AbortController | null) => void): Promise<void> {
    const frameId = newId("req");
    let frame: Record<string, unknown>;
    try {
      const parsed: unknown = isBinary ? undefined : JSON.parse(data.toString());
      if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("not an object");
      frame = parsed as Record<string, unknown>;
    } catch {
      send(ws, errorFrame(new GatewayError("invalid_body", "A frame must be a JSON object with a type."), frameId));
      return;
    }
    if (frame.type !== "response.create") {
      send(ws, errorFrame(new GatewayError("invalid_body", `Unknown frame type: ${JSON.stringify(frame.type ?? null)}; expected 'response.create'.`, { param: "type" }), frameId));
      return;
    }
    const { type: _type, ...fields } = frame;
    const nested = fields.response;
    const body: Record<string, unknown> = nested !== null && typeof nested === "object" && !Array.isArray(nested) && fields.model === undefined ? { ...(nested as object), stream: true } : { ...fields, stream: true };
    let history: Item[] | null;
    try {
      history = continueOnSocket(body, remembered);
    } catch (error) {
      send(ws, errorFrame(asGatewayError(error), frameId));
      return;
    }
    const abort = new AbortController();
    track(abort);
    try {
      const answer = await loopback.request({
        path: PATH,
        method: "POST",
        headers: { authorization: `Bearer ${credential}`, "content-type": "application/json", "x-forwarded-for": clientAddress },
        body: JSON.stringify(body),
        signal: abort.signal,
      });
      if (answer.statusCode !== 200) {
        const text = await answer.body.text();
        send(ws, JSON.stringify({ ...(JSON.parse(text) as object), status: answer.statusCode }));
        return;
      }
      const parser = createParser({
        onEvent: (event) => {
          send(ws, event.data);
          if (history !== null) remember(remembered, history, event.data);
        },
      });
      const decoder = new TextDecoder();
      for await (const chunk of answer.body) parser.feed(decoder.decode(chunk as Buffer, { stream: true }));
    } catch (error) {
      if (!abort.signal.aborted) {
        logger.warn({ err: (error as Error).message }, "responses websocket frame failed");
        send(ws, errorFrame(new GatewayError("internal_error", "The gateway hit an internal error."), frameId));
      }
    } finally {
      track(null);
    }
  }

  /**
   * A `previous_response_id` naming a `store: false` response this socket answered is continued
   * from the socket's own memory, as the API does over WebSocket (Codex sends `store: false` and
   * only the new items): the request then carries the whole input and no id. Stored responses
   * are continued by the stored state (over HTTP), which keeps their chain. Returns the whole
   * input to remember with the answer (a `store: false` request only), or null.
   */
  function continueOnSocket(body: Record<string, unknown>, remembered: Map<string, Item[]>): Item[] | null {
    const previous = body.previous_response_id;
    const before = typeof previous === "string" ? remembered.get(previous) : [];
    if (before === undefined || body.conversation !== undefined) return null;
    if (body.input !== undefined && body.input !== null && typeof body.input !== "string" && !Array.isArray(body.input)) return null;
    const whole = [...before, ...inputItems(body.input)];
    if (typeof previous === "string") {
      delete body.previous_response_id;
      body.input = upstreamItems(whole);
    }
    return body.store === false ? whole : null;
  }

  /** A finished response's whole input and output, for the socket's next `previous_response_id`. */
  function remember(remembered: Map<string, Item[]>, input: Item[], data: string): void {
    if (!data.includes('"response.completed"') && !data.includes('"response.incomplete"')) return;
    let event: { type?: unknown; response?: { id?: unknown; output?: unknown } };
    try {
      event = JSON.parse(data) as typeof event;
    } catch {
      return;
    }
    const response = event.response;
    if ((event.type !== "response.completed" && event.type !== "response.incomplete") || typeof response?.id !== "string") return;
    remembered.set(response.id, [...input, ...(Array.isArray(response.output) ? (response.output as Item[]) : [])]);
    while (remembered.size > REMEMBERED) remembered.delete(remembered.keys().next().value!);
  }

  function send(ws: WebSocket, text: string): void {
    if (ws.readyState === ws.OPEN) ws.send(text);
  }

  return {
    async close(deadlineMs) {
      closing = true;
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, deadlineMs)));
      await Promise.race([Promise.all([...sessions.values()].map((idle) => idle())), deadline]);
      clearTimeout(timer);
      for (const ws of wss.clients) ws.close(1001, "server shutting down");
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await loopback.close();
    },
  };
}
