// The floor: the least a Node pass-through proxy can do per request (node:http in, one undici Pool
// out), run by scripts/bench.sh on the proxy's core under the same load, so the gateway's CPU and
// memory read against what any Node proxy costs on this machine. No auth, no routing, no logging.
// `PORT=8080 FLOOR_UPSTREAM_URL=http://127.0.0.1:1234 node apps/bench/src/floor-proxy.ts`
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { Pool, type Dispatcher } from "undici";

const FORWARDED_HEADERS = ["content-type", "authorization", "x-api-key", "anthropic-version", "accept"];

const upstreamUrl = process.env.FLOOR_UPSTREAM_URL;
if (!upstreamUrl) {
  process.stderr.write("floor-proxy: FLOOR_UPSTREAM_URL (the upstream's base URL) is required\n");
  process.exit(1);
}
// One connection per open stream: the bench holds 1,000 at once.
const pool = new Pool(upstreamUrl, { connections: 2048 });

async function forward(req: IncomingMessage, res: ServerResponse, body: Buffer): Promise<void> {
  const headers: Record<string, string> = {};
  for (const name of FORWARDED_HEADERS) {
    const value = req.headers[name];
    if (typeof value === "string") headers[name] = value;
  }
  const abort = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) abort.abort();
  });
  try {
    const upstream = await pool.request({
      method: req.method as Dispatcher.HttpMethod,
      path: req.url ?? "/",
      headers,
      body: body.length > 0 ? body : null,
      signal: abort.signal,
    });
    const contentType = upstream.headers["content-type"];
    res.writeHead(upstream.statusCode, typeof contentType === "string" ? { "content-type": contentType } : {});
    for await (const chunk of upstream.body) res.write(chunk);
    res.end();
  } catch {
    if (!res.headersSent) res.writeHead(502).end();
    else res.destroy();
  }
}

createServer((req, res) => {
  if (req.url === "/readyz") {
    res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    return;
  }
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => void forward(req, res, Buffer.concat(chunks)));
  req.on("error", () => res.destroy());
}).listen(Number(process.env.PORT ?? 8080), "127.0.0.1");

// A clean exit on SIGTERM (scripts/bench.sh stops it so), so `node --cpu-prof` writes the floor's
// profile (BENCH_PROFILE=1) as it does the proxy's.
process.on("SIGTERM", () => process.exit(0));
