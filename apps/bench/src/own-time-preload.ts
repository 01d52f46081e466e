// Loaded into the proxy by `BENCH_OWN_TIME=1 pnpm bench` (node --import): times each request and
// its upstream calls (apps/bench/src/own-time.ts) and prints the `[own-time]` line at SIGTERM.
import { subscribe } from "node:diagnostics_channel";
import { Server, type IncomingMessage, type ServerResponse } from "node:http";
import { OwnTime, upstreamRequestId } from "./own-time.ts";

interface UndiciRequest {
  headers: string | string[];
}

const times = new OwnTime();
const started = new WeakMap<object, number>();
subscribe("undici:request:create", (message) => started.set((message as { request: object }).request, performance.now()));
subscribe("undici:request:trailers", (message) => {
  const request = (message as { request: UndiciRequest }).request;
  const start = started.get(request);
  const id = upstreamRequestId(request.headers);
  if (start !== undefined && id !== null) times.upstreamCall(id, performance.now() - start);
});
const emit = Server.prototype.emit;
Server.prototype.emit = function (this: Server, event: string, ...args: unknown[]) {
  if (event === "request") {
    const [request, response] = args as [IncomingMessage & { requestId?: string }, ServerResponse];
    const start = performance.now();
    response.once("finish", () => {
      if (request.requestId !== undefined) times.finished(request.requestId, performance.now() - start);
    });
  }
  return Reflect.apply(emit, this, [event, ...args]) as boolean;
} as typeof Server.prototype.emit;
process.prependListener("SIGTERM", () => process.stderr.write(`${times.report()}\n`));
