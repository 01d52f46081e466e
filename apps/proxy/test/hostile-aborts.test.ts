// Issue 35, contract section 14, "no client can crash or stall a process": raw sockets that end
// (FIN) or reset (RST) at every phase of every route (inside the request head, mid-body, after the
// body before the answer, mid-answer) on the model routes, count_tokens, /v1/usage, /v1/models, /v1/redeem and
// the `/api` relay, the latter also while the relay's pool to the control plane is saturated by slow
// uploads. No proxy process exits (the same processes serve afterwards, the cluster primary
// restarted none), and every admitted request that reached the upstream or answered has exactly
// one ledger row.
import { connect, type Socket } from "node:net";
import fc from "fast-check";
import { createVendorToken } from "@gateway/control-plane";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { everyReplicaAnswers, processTree, startHostileStack, type HostileStack, type Replica } from "./hostile-stack.ts";
import { shapeHeaders } from "./hostile-requests.ts";

let stack: HostileStack;
let replica: Replica;
let key: { id: string; key: string };
/** Another vendor's token: its `/api` calls queue for the relay's pool behind the slow uploads of the first. */
let neighbourToken: string;
beforeAll(async () => {
  // A cluster (a primary and two workers) with a small relay pool, so a few slow uploads fill it.
  stack = await startHostileStack({ replicas: 1, proxyEnv: { PROXY_PROCESSES: "2", API_RELAY_CONNECTIONS: "2", DISCONNECT_DRAIN_MS: "500" } });
  replica = stack.replicas[0]!;
  key = await stack.mintKey();
  neighbourToken = (await createVendorToken(stack.controlPlane.services.db.prisma, { vendor: "hostile-neighbour", name: "neighbour", scopes: ["keys:create", "keys:read"] })).plaintext;
}, 90_000);
afterAll(async () => stack?.close());

interface Route {
  name: string;
  method: "GET" | "POST";
  path: string;
  headers(): Record<string, string>;
  body(tag: string): string;
  /** Whether an admitted request is billed (a ledger row). */
  billed: boolean;
}

const chat = (model: string, stream: boolean, tag: string) =>
  JSON.stringify({ model, stream, max_tokens: 60, messages: [{ role: "user", content: `abort ${tag} #sim:latency_ms=100 #sim:chunks=50 #sim:chunk_delay_ms=4` }] });

const ROUTES: Route[] = [
  { name: "chat stream", method: "POST", path: "/v1/chat/completions", headers: () => shapeHeaders("chat", key.key), body: (tag) => chat("gpt-h", true, tag), billed: true },
  { name: "chat json, translated", method: "POST", path: "/v1/chat/completions", headers: () => shapeHeaders("chat", key.key), body: (tag) => chat("claude-h", false, tag), billed: true },
  { name: "messages stream", method: "POST", path: "/v1/messages", headers: () => shapeHeaders("messages", key.key), body: (tag) => chat("claude-h", true, tag), billed: true },
  { name: "messages stream, translated", method: "POST", path: "/v1/messages", headers: () => shapeHeaders("messages", key.key), body: (tag) => chat("gpt-h", true, tag), billed: true },
  {
    name: "responses stream",
    method: "POST",
    path: "/v1/responses",
    headers: () => shapeHeaders("responses", key.key),
    body: (tag) => JSON.stringify({ model: "gpt-h", stream: true, max_output_tokens: 60, input: `abort ${tag} #sim:latency_ms=100 #sim:chunks=50 #sim:chunk_delay_ms=4` }),
    billed: true,
  },
  {
    name: "count_tokens",
    method: "POST",
    path: "/v1/messages/count_tokens",
    headers: () => shapeHeaders("messages", key.key),
    body: (tag) => JSON.stringify({ model: "claude-h", messages: [{ role: "user", content: `${tag} ${"count me ".repeat(20_000)}` }] }),
    billed: false,
  },
  { name: "usage", method: "GET", path: "/v1/usage", headers: () => shapeHeaders("chat", key.key), body: () => "", billed: false },
  { name: "models", method: "GET", path: "/v1/models", headers: () => shapeHeaders("chat", key.key), body: () => "", billed: false },
  { name: "model", method: "GET", path: "/v1/models/gpt-h", headers: () => shapeHeaders("chat", key.key), body: () => "", billed: false },
  // A redemption is relayed to the control plane (/internal/redeem); an unknown code credits nothing.
  { name: "redeem", method: "POST", path: "/v1/redeem", headers: () => shapeHeaders("chat", key.key), body: (tag) => JSON.stringify({ code: `rc_abort_${tag}` }), billed: false },
  {
    name: "api mint",
    method: "POST",
    path: "/api/keys",
    headers: () => ({ authorization: `Bearer ${neighbourToken}`, "content-type": "application/json" }),
    body: (tag) => JSON.stringify({ server_option: "hostile", name: `abort ${tag}`, metadata: { pad: "x".repeat(2000) } }),
    billed: false,
  },
  { name: "api list", method: "GET", path: "/api/keys?limit=5", headers: () => ({ authorization: `Bearer ${neighbourToken}` }), body: () => "", billed: false },
];

type Phase = "head" | "mid-body" | "after-body" | "mid-answer";

interface Abort {
  route: Route;
  phase: Phase;
  reset: boolean;
  /** Milliseconds between the phase's last write (or first answer byte) and the abort. */
  waitMs: number;
  /** Where in the head or body the write stops (a share of it). */
  cut: number;
}

const abort: fc.Arbitrary<Abort> = fc.record({
  route: fc.constantFrom(...ROUTES),
  phase: fc.constantFrom<Phase>("head", "mid-body", "after-body", "mid-answer"),
  reset: fc.boolean(),
  waitMs: fc.integer({ min: 0, max: 150 }),
  cut: fc.integer({ min: 1, max: 99 }).map((percent) => percent / 100),
});

function requestText(route: Route, tag: string): { head: string; body: string } {
  const body = route.body(tag);
  const headers = { ...route.headers(), ...(route.method === "POST" ? { "content-length": String(Buffer.byteLength(body)) } : {}) };
  const { host } = new URL(replica.url);
  const head = `${route.method} ${route.path} HTTP/1.1\r\nhost: ${host}\r\n${Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join("")}\r\n`;
  return { head, body };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs one abort; resolves with the request id the client saw, if any answer bytes came. */
async function runAbort(plan: Abort, tag: string): Promise<string | null> {
  const { hostname, port } = new URL(replica.url);
  const socket: Socket = connect(Number(port), hostname);
  socket.on("error", () => undefined);
  let received = "";
  let firstByte: () => void = () => undefined;
  const answered = new Promise<void>((resolve) => (firstByte = resolve));
  socket.on("data", (chunk: Buffer) => {
    received += chunk.toString("latin1");
    firstByte();
  });
  socket.on("close", () => firstByte());
  await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  const { head, body } = requestText(plan.route, tag);
  switch (plan.phase) {
    case "head":
      socket.write(head.slice(0, Math.max(1, Math.floor(head.length * plan.cut))));
      break;
    case "mid-body":
      socket.write(head);
      if (body.length > 0) socket.write(body.slice(0, Math.max(1, Math.floor(body.length * plan.cut))));
      break;
    case "after-body":
      socket.write(head + body);
      break;
    case "mid-answer":
      socket.write(head + body);
      await Promise.race([answered, pause(1_500)]);
      break;
  }
  await pause(plan.waitMs);
  if (plan.reset) socket.resetAndDestroy();
  else socket.destroy();
  return /\r\nx-request-id: (req_[0-9a-f]+)/i.exec(received)?.[1] ?? null;
}

/**
 * Slow `/api` uploads (the first vendor's) that hold the relay's connections to the control plane:
 * a byte of body every 100 ms, until stopped (then reset).
 */
function trickleUploads(count: number): () => void {
  const sockets: Socket[] = [];
  const timers: NodeJS.Timeout[] = [];
  for (let index = 0; index < count; index += 1) {
    const mint = ROUTES.find((route) => route.name === "api mint")!;
    const { head, body } = requestText({ ...mint, headers: () => ({ authorization: `Bearer ${stack.vendorToken}`, "content-type": "application/json" }) }, `trickle-${index}`);
    const { hostname, port } = new URL(replica.url);
    const socket = connect(Number(port), hostname);
    socket.on("error", () => undefined);
    sockets.push(socket);
    socket.write(head);
    let sent = 0;
    timers.push(
      setInterval(() => {
        if (sent < body.length - 1 && !socket.destroyed) socket.write(body[sent++]!);
      }, 100),
    );
  }
  return () => {
    for (const timer of timers) clearInterval(timer);
    for (const socket of sockets) socket.resetAndDestroy();
  };
}

/** Request ids the upstream saw for this suite's model calls (the proxy sends its id upstream). */
function upstreamRequestIds(): string[] {
  return stack.simulator.stats.requests
    .filter((record) => !record.path.includes("count_tokens"))
    .map((record) => record.headers["x-request-id"])
    .filter((id): id is string => typeof id === "string" && id.startsWith("req_"));
}

describe("aborts at every phase of every route", () => {
  it("never end a proxy process, and every admitted request has one ledger row", async () => {
    // The primary and both workers (the second may still be starting when the first is ready).
    let processesBefore = processTree(replica);
    for (let waited = 0; processesBefore.length < 3 && waited < 15_000; waited += 100) {
      await pause(100);
      processesBefore = processTree(replica);
    }
    expect(processesBefore).toHaveLength(3);
    const answeredIds: string[] = [];
    let run = 0;
    // More than the relay's connections in every worker (64 each before issue 35's pools apart, 2 here).
    const stopTrickles = trickleUploads(150);
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(abort, { minLength: 1, maxLength: 24 }), async (plans) => {
          run += 1;
          const ids = await Promise.all(plans.map((plan, index) => runAbort(plan, `r${run}-${index}`)));
          plans.forEach((plan, index) => {
            if (plan.route.billed && ids[index]) answeredIds.push(ids[index]!);
          });
          // Whatever just happened, the processes serve: a plain request on a fresh connection.
          const status = await fetch(`${replica.url}/v1/models`, { headers: { authorization: `Bearer ${key.key}` } }).then((response) => response.status, () => 0);
          expect(status).toBe(200);
        }),
        { numRuns: 25 },
      );
    } finally {
      stopTrickles();
    }
    expect(replica.output()).not.toContain("proxy worker died");
    expect(processTree(replica)).toEqual(processesBefore);
    expect(await everyReplicaAnswers(stack.replicas)).toBe(true);
    // The relay recovers: the vendor API and /v1/usage answer through the proxy once the aborts are over.
    const list = await fetch(`${replica.url}/api/keys?limit=1`, { headers: { authorization: `Bearer ${stack.vendorToken}` } });
    expect(list.status).toBe(200);
    const usage = await fetch(`${replica.url}/v1/usage`, { headers: { authorization: `Bearer ${key.key}` } });
    expect(usage.status).toBe(200);

    const admitted = [...new Set([...upstreamRequestIds(), ...answeredIds])];
    expect(admitted.length).toBeGreaterThan(0);
    const rows = await stack.ledgerWith(key.id, admitted, 30_000);
    const perRequest = new Map<string, number>();
    for (const row of rows) perRequest.set(row.requestId, (perRequest.get(row.requestId) ?? 0) + 1);
    expect(admitted.filter((id) => perRequest.get(id) !== 1)).toEqual([]);
  }, 90_000);
});
