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
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const timer = setTimeout(() => server.closeAllConnections(), deadlineMs);
      return closed.finally(() => clearTimeout(timer));
    },
  };
}
