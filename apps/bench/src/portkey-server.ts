// Portkey's open-source gateway (npm @portkey-ai/gateway, installed by scripts/bench.sh under
// .tools/portkey-gateway, outside the workspace) as the bench runs it: its own Node server
// (build/start-server.js, Hono on @hono/node-server), headless, listening on loopback only.
// Its start script takes `--port=` and binds every interface; this launcher makes the one server
// it opens bind 127.0.0.1 instead, and changes nothing else.
//   PORT=8787 PORTKEY_ENTRY=.tools/portkey-gateway/node_modules/@portkey-ai/gateway/build/start-server.js \
//     node apps/bench/src/portkey-server.ts
import { Server } from "node:net";
import { pathToFileURL } from "node:url";

const entry = process.env.PORTKEY_ENTRY;
const port = Number(process.env.PORT);
if (!entry || !Number.isInteger(port) || port <= 0) {
  process.stderr.write("portkey-server: PORTKEY_ENTRY (its build/start-server.js) and PORT are required\n");
  process.exit(1);
}

// @hono/node-server calls `server.listen(port, hostname, callback)` with no hostname: all interfaces.
const listen = Server.prototype.listen as (this: Server, ...args: unknown[]) => Server;
Server.prototype.listen = function listenOnLoopback(this: Server, ...args: unknown[]) {
  if (typeof args[0] === "number") {
    const callback = args.find((arg) => typeof arg === "function");
    return listen.call(this, args[0], "127.0.0.1", ...(callback ? [callback] : []));
  }
  return listen.apply(this, args);
} as typeof Server.prototype.listen;

process.argv.push(`--port=${port}`, "--headless");
await import(pathToFileURL(entry).href);
