// Isolation (issue 35, contract section 14: "no client can crash or stall a process"), measured,
// not tested: a neighbour's latency on /v1/models, /v1/chat/completions and /v1/usage, alone and
// while one hostile client
//   (a) floods /v1/messages/count_tokens with huge bodies (2 MB to count, 9 MB tool names) on a
//       model of an OpenAI-shape upstream, which the proxy counts itself,
//   (b) sends unauthenticated 10 MB bodies,
//   (c) trickles 200 slow /api uploads.
// The stack is the hostile suite's (test/hostile-stack.ts: Postgres, Redis, the simulator, the
// control plane, the billing worker) with one proxy of PROXY_PROCESSES workers (default 2). The
// hostile client runs in a worker thread, so its own work never delays the neighbour's clock.
//
//   node scripts/isolation.ts [--seconds 20] [--processes 2] [--lanes 4]
//
// Prints a markdown table (p50/p99 in ms per endpoint and scenario) for docs/isolation.md.
import { Agent, request as httpRequest } from "node:http";
import { connect, type Socket } from "node:net";
import { performance } from "node:perf_hooks";
import { availableParallelism } from "node:os";
import { parseArgs } from "node:util";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";

type Attack = "count_tokens" | "unauthenticated" | "slow_api";
interface AttackerData {
  attack: Attack;
  /** Concurrent connections of the count_tokens and 10 MB attacks. */
  lanes: number;
  url: string;
  key: string;
  vendorToken: string;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One request on the lane's keep-alive connection (so the server must read or drop every byte of
 * the body before the connection can carry the next one); resolves once the answer has ended and
 * the body is written, or either failed.
 */
function post(url: string, agent: Agent, path: string, headers: Record<string, string>, body: Buffer): Promise<number> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    let status = 0;
    let pending = 2;
    const done = () => {
      pending -= 1;
      if (pending === 0) resolve(status);
    };
    const call = httpRequest({ hostname, port, path, method: "POST", headers: { ...headers, "content-length": String(body.length) }, agent }, (response) => {
      status = response.statusCode ?? 0;
      response.resume();
      response.on("end", done);
      response.on("error", () => resolve(status));
    });
    call.on("error", () => resolve(status));
    call.on("finish", done);
    call.end(body);
  });
}

// The hostile client (a worker thread): runs its attack until told to stop, counts what it sent.
async function attacker(data: AttackerData): Promise<void> {
  let stopped = false;
  let sent = 0;
  const statuses: Record<string, number> = {};
  const count = (status: number) => (statuses[status] = (statuses[status] ?? 0) + 1);
  parentPort!.on("message", (message) => {
    if (message === "stop") stopped = true;
  });
  const lanes: Promise<void>[] = [];
  if (data.attack === "count_tokens") {
    const headers = { authorization: `Bearer ${data.key}`, "content-type": "application/json", "anthropic-version": "2023-06-01" };
    const counted = Buffer.from(JSON.stringify({ model: "gpt-h", messages: [{ role: "user", content: "count these words ".repeat(105_000) }] }));
    const hugeTool = Buffer.from(JSON.stringify({ model: "gpt-h", messages: [{ role: "user", content: "hi" }], tools: [{ name: "t".repeat(9_000_000), input_schema: { type: "object" } }] }));
    for (let lane = 0; lane < data.lanes; lane += 1) {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      lanes.push((async () => {
        for (let n = 0; !stopped; n += 1) {
          count(await post(data.url, agent, "/v1/messages/count_tokens", headers, n % 2 === 0 ? counted : hugeTool));
          sent += 1;
        }
      })());
    }
  } else if (data.attack === "unauthenticated") {
    const body = Buffer.concat([Buffer.from('{"model":"gpt-h","messages":[{"role":"user","content":"'), Buffer.alloc(10_000_000 - 60, "a"), Buffer.from('"}]}')]);
    for (let lane = 0; lane < data.lanes; lane += 1) {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      lanes.push((async () => {
        while (!stopped) {
          count(await post(data.url, agent, "/v1/chat/completions", { "content-type": "application/json" }, body));
          sent += 1;
        }
      })());
    }
  } else {
    // 200 uploads open at once, each a byte every 500 ms (inside the relay's body timeout); a cut one is replaced.
    const { hostname, port } = new URL(data.url);
    const body = JSON.stringify({ server_option: "hostile", name: "slow", metadata: { pad: "x".repeat(4000) } });
    const open = (): Socket => {
      const socket = connect(Number(port), hostname);
      socket.on("error", () => undefined);
      socket.write(`POST /api/keys HTTP/1.1\r\nhost: ${hostname}:${port}\r\nauthorization: Bearer ${data.vendorToken}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`);
      sent += 1;
      return socket;
    };
    const sockets = Array.from({ length: 200 }, open);
    const offsets = sockets.map(() => 0);
    lanes.push((async () => {
      while (!stopped) {
        for (let index = 0; index < sockets.length; index += 1) {
          if (sockets[index]!.destroyed || offsets[index]! >= body.length - 1) {
            sockets[index]!.destroy();
            sockets[index] = open();
            offsets[index] = 0;
          }
          sockets[index]!.write(body[offsets[index]!]!);
          offsets[index]! += 1;
        }
        await pause(500);
      }
      for (const socket of sockets) socket.destroy();
    })());
  }
  await Promise.all(lanes);
  parentPort!.postMessage({ sent, statuses });
}

/** The neighbour: each endpoint asked every 50 ms (20 a second each), each answer's time kept. */
async function neighbour(url: string, key: string, seconds: number): Promise<Record<string, { latencies: number[]; failures: number }>> {
  const auth = { authorization: `Bearer ${key}` };
  const endpoints: Record<string, () => Promise<Response>> = {
    "/v1/models": () => fetch(`${url}/v1/models`, { headers: auth }),
    "/v1/chat/completions": () =>
      fetch(`${url}/v1/chat/completions`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify({ model: "gpt-h", max_tokens: 16, messages: [{ role: "user", content: "hello from the neighbour" }] }),
      }),
    "/v1/usage": () => fetch(`${url}/v1/usage`, { headers: auth }),
  };
  const until = performance.now() + seconds * 1000;
  const results: Record<string, { latencies: number[]; failures: number }> = {};
  await Promise.all(
    Object.entries(endpoints).map(async ([name, call]) => {
      const result = (results[name] = { latencies: [] as number[], failures: 0 });
      while (performance.now() < until) {
        const started = performance.now();
        const response = await call().catch(() => null);
        if (response) await response.arrayBuffer();
        const took = performance.now() - started;
        if (response?.status === 200) result.latencies.push(took);
        else result.failures += 1;
        await pause(Math.max(0, 50 - took));
      }
    }),
  );
  return results;
}

function percentile(sorted: number[], share: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)]!;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { seconds: { type: "string", default: "20" }, processes: { type: "string", default: "2" }, lanes: { type: "string", default: "4" } } });
  const seconds = Number(values.seconds);
  const lanes = Number(values.lanes);
  const { startHostileStack } = await import("../test/hostile-stack.ts");
  const stack = await startHostileStack({ replicas: 1, proxyEnv: { PROXY_PROCESSES: values.processes!, LOG_LEVEL: "error" } });
  try {
    const url = stack.replicas[0]!.url;
    const neighbourKey = (await stack.mintKey()).key;
    const attackerKey = (await stack.mintKey()).key;
    // Warm-up: connections, key caches, the JIT.
    await neighbour(url, neighbourKey, 3);
    const rows: string[] = [];
    for (const scenario of ["none", "count_tokens", "unauthenticated", "slow_api"] as const) {
      let worker: Worker | null = null;
      let sent: Promise<string> = Promise.resolve("-");
      if (scenario !== "none") {
        worker = new Worker(new URL(import.meta.url), { workerData: { attack: scenario, lanes, url, key: attackerKey, vendorToken: stack.vendorToken } satisfies AttackerData });
        const started = worker;
        sent = new Promise((resolve) => started.once("message", (message: { sent: number; statuses: Record<string, number> }) => resolve(`${message.sent} ${JSON.stringify(message.statuses)}`)));
        await pause(2_000); // the attack is under way before the neighbour measures
      }
      const results = await neighbour(url, neighbourKey, seconds);
      worker?.postMessage("stop");
      const attackerRequests = await Promise.race([sent, pause(30_000).then(() => "(no report)")]);
      await worker?.terminate();
      for (const [endpoint, result] of Object.entries(results)) {
        const sorted = [...result.latencies].sort((a, b) => a - b);
        rows.push(`| ${scenario} | ${endpoint} | ${sorted.length} | ${result.failures} | ${percentile(sorted, 0.5).toFixed(1)} | ${percentile(sorted, 0.99).toFixed(1)} | ${attackerRequests} |`);
      }
      console.error(`isolation: ${scenario} done`);
      await pause(1_000);
    }
    console.log(`Run ${new Date().toISOString()}, ${seconds} s per scenario, PROXY_PROCESSES=${values.processes}, ${lanes} attacker lanes, ${availableParallelism()} cores\n`);
    console.log("| attack | neighbour endpoint | answers | failures | p50 ms | p99 ms | attacker requests {status: count} |");
    console.log("|---|---|---|---|---|---|---|");
    for (const row of rows) console.log(row);
  } finally {
    await stack.close();
  }
}

if (isMainThread) await main();
else await attacker(workerData as AttackerData);
