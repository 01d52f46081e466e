// A logging pass-through in front of the gateway: every request a client sends (method, path,
// headers, body) and the status it got, relayed byte for byte. The client suite reads it to see what
// a CLI sent (its WebSocket attempt, its model names); the fixture recorder writes it to disk.
import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface RecordedExchange {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The parsed JSON body, the raw text when it is not JSON, or "" when there is none. */
  body: unknown;
  status: number | null;
  /** Milliseconds since the recorder started. */
  at: number;
  durationMs: number | null;
}

export interface Recorder {
  url: string;
  exchanges: RecordedExchange[];
  close(): Promise<void>;
}

/** Header values that are credentials: redacted to their first 7 characters. */
const SECRET_HEADERS = new Set(["authorization", "x-api-key", "x-goog-api-key", "api-key", "cookie", "proxy-authorization"]);

export function redactHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value.join(", ") : value;
    out[name] = SECRET_HEADERS.has(name) ? redactSecret(text) : text;
  }
  return out;
}

function redactSecret(value: string): string {
  const bearer = /^Bearer\s+/i.exec(value);
  const token = bearer ? value.slice(bearer[0].length) : value;
  return `${bearer ? "Bearer " : ""}${token.slice(0, 7)}…`;
}

function parseBody(raw: Buffer): unknown {
  if (raw.length === 0) return "";
  const text = raw.toString("utf8");
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** Starts the pass-through on a free loopback port, relaying to `target` (e.g. the proxy's URL). */
export async function startRecorder(target: string): Promise<Recorder> {
  const upstream = new URL(target);
  const started = Date.now();
  const exchanges: RecordedExchange[] = [];
  const record = (req: IncomingMessage, body: Buffer): RecordedExchange => {
    const exchange: RecordedExchange = { method: req.method ?? "GET", path: req.url ?? "/", headers: redactHeaders(req.headers), body: parseBody(body), status: null, at: Date.now() - started, durationMs: null };
    exchanges.push(exchange);
    return exchange;
  };
  const forwardHeaders = (headers: IncomingHttpHeaders) => ({ ...headers, host: upstream.host });

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const exchange = record(req, body);
      const out = httpRequest(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: forwardHeaders(req.headers) },
        (answer) => {
          exchange.status = answer.statusCode ?? null;
          res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
          answer.pipe(res);
          answer.on("end", () => (exchange.durationMs = Date.now() - started - exchange.at));
        },
      );
      out.on("error", () => {
        if (!res.headersSent) res.writeHead(502, { "content-type": "application/json" });
        res.end(JSON.stringify({ type: "error", error: { type: "api_error", message: "recorder: the gateway did not answer" } }));
      });
      res.on("close", () => out.destroy());
      out.end(body);
    });
  });

  // `Upgrade:` requests (Codex's WebSocket attempt): relayed as they are; a non-101 answer is written
  // back on the raw socket, a 101 joins the two sockets.
  server.on("upgrade", (req: IncomingMessage, socket: Socket, head: Buffer) => {
    const exchange = record(req, Buffer.alloc(0));
    const out = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: forwardHeaders(req.headers) });
    out.on("response", (answer) => {
      exchange.status = answer.statusCode ?? null;
      const lines = [`HTTP/1.1 ${answer.statusCode} ${answer.statusMessage ?? ""}`];
      for (let i = 0; i < answer.rawHeaders.length; i += 2) lines.push(`${answer.rawHeaders[i]}: ${answer.rawHeaders[i + 1]}`);
      socket.write(`${lines.join("\r\n")}\r\n\r\n`);
      answer.pipe(socket);
      answer.on("end", () => (exchange.durationMs = Date.now() - started - exchange.at));
    });
    out.on("upgrade", (answer, upstreamSocket, upstreamHead) => {
      exchange.status = 101;
      const lines = ["HTTP/1.1 101 Switching Protocols"];
      for (let i = 0; i < answer.rawHeaders.length; i += 2) lines.push(`${answer.rawHeaders[i]}: ${answer.rawHeaders[i + 1]}`);
      socket.write(`${lines.join("\r\n")}\r\n\r\n`);
      if (upstreamHead.length > 0) socket.write(upstreamHead);
      if (head.length > 0) upstreamSocket.write(head);
      upstreamSocket.pipe(socket).pipe(upstreamSocket);
      socket.on("error", () => upstreamSocket.destroy());
      upstreamSocket.on("error", () => socket.destroy());
    });
    out.on("error", () => socket.destroy());
    socket.on("error", () => out.destroy());
    out.end();
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exchanges,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
