import { createServer, ServerResponse, type RequestListener, type Server } from "node:http";
import { Server as NetServer, type AddressInfo } from "node:net";

/**
 * How long idle keep-alive connections stay open after close() began. A client may be sending on
 * one at that very moment: cutting it at once would reset that request. In this window such a
 * request is answered (with `connection: close`); after it the idle connections are closed.
 */
const IDLE_GRACE_MS = 500;

export interface Listening {
  server: Server;
  port: number;
  url: string;
  /** Stops accepting, lets in-flight requests finish up to `deadlineMs`, then cuts the rest. */
  close(deadlineMs: number): Promise<void>;
}

/** Starts an HTTP server the same way for every app. */
export async function listen(handler: RequestListener, port: number, host: string, options: { ServerResponse?: typeof ServerResponse } = {}): Promise<Listening> {
  const server = createServer({ keepAliveTimeout: 65_000, ServerResponse: options.ServerResponse ?? ServerResponse }, handler);
  // Node's close() only ends the keep-alive connections idle at that moment; one busy then (a
  // stream finishing during shutdown) would stay open after its response until the client drops it
  // or the deadline cuts it, holding the process up. While closing, every connection is ended as
  // soon as its response is done.
  let closing = false;
  /** Set once the idle grace after close() has passed: from then on idle connections end at once. */
  let graceOver = false;
  // One listener for every response (a response finishes once): no closure per request.
  const closeIdleAfter = () => server.closeIdleConnections();
  const afterResponse = () => {
    if (graceOver) setImmediate(closeIdleAfter);
  };
  // Before the app's own listener, so the header it writes already says `connection: close`.
  server.prependListener("request", (_request, response) => {
    if (closing) response.shouldKeepAlive = false;
    response.on("finish", afterResponse);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const actual = (server.address() as AddressInfo).port;
  return {
    server,
    port: actual,
    url: `http://${host.includes(":") ? `[${host}]` : host}:${actual}`,
    close(deadlineMs) {
      closing = true;
      // net.Server's close stops accepting; http.Server's would also cut idle connections at once.
      const closed = new Promise<void>((resolve) => NetServer.prototype.close.call(server, () => resolve()));
      const idle = setTimeout(() => {
        graceOver = true;
        server.closeIdleConnections();
      }, Math.min(IDLE_GRACE_MS, deadlineMs));
      const timer = setTimeout(() => server.closeAllConnections(), deadlineMs);
      return closed.finally(() => {
        clearTimeout(idle);
        clearTimeout(timer);
      });
    },
  };
}
