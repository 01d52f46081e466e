import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface Listening {
  server: Server;
  port: number;
  url: string;
  /** Stops accepting, lets in-flight requests finish up to `deadlineMs`, then cuts the rest. */
  close(deadlineMs: number): Promise<void>;
}

/** Starts an HTTP server the same way for every app. */
export async function listen(handler: RequestListener, port: number, host: string): Promise<Listening> {
  const server = createServer({ keepAliveTimeout: 65_000 }, handler);
  // Node's close() only ends the keep-alive connections idle at that moment; one busy then (a
  // stream finishing during shutdown) would stay open after its response until the client drops it
  // or the deadline cuts it, holding the process up. While closing, every connection is ended as
  // soon as its response is done.
  let closing = false;
  server.on("request", (_request, response) => {
    if (closing) response.shouldKeepAlive = false;
    response.once("finish", () => {
      if (closing) setImmediate(() => server.closeIdleConnections());
    });
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
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const timer = setTimeout(() => server.closeAllConnections(), deadlineMs);
      return closed.finally(() => clearTimeout(timer));
    },
  };
}
