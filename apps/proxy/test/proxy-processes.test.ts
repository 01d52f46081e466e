// PROXY_PROCESSES (issue 18): a supervised process per core behind one port. The primary restarts a
// dead worker, /metrics shows every worker's counts summed, and SIGTERM stops them all gracefully.
import { readdirSync, readFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveTestServices } from "@gateway/testing";
import { startStack, type Stack } from "./stack.ts";
import { spawnProxy, type ProxyProcess } from "./replicas.ts";

let stack: Stack;
let proxy: ProxyProcess;
let key: string;

beforeAll(async () => {
  const { redisUrl } = await resolveTestServices();
  stack = await startStack();
  ({ key } = await stack.mintKey());
  proxy = await spawnProxy({ REDIS_URL: redisUrl, REDIS_PREFIX: stack.prefix, PROXY_PROCESSES: "2", SHUTDOWN_DEADLINE_MS: "5000", METRICS_PUBLIC: "true" });
}, 60_000);

afterAll(async () => {
  if (proxy && proxy.child.exitCode === null && proxy.child.signalCode === null) proxy.child.kill("SIGKILL");
  for (const pid of workerPids()) process.kill(pid, "SIGKILL");
  await stack?.close();
});

/** The primary's children (the workers), read from /proc. */
function workerPids(): number[] {
  const parent = proxy?.child.pid;
  if (parent === undefined) return [];
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // pid (comm) state ppid ...: comm may hold spaces, so read after the last ")".
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === parent) pids.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return pids.sort();
}

/** GET on a new connection each time, so the primary hands each one to a worker in turn. */
function get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const call = httpRequest(`${proxy.url}${path}`, { agent: false, headers }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (body += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
    });
    call.on("error", reject);
    call.end();
  });
}

async function waitFor<T>(read: () => T, ok: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = read();
  while (!ok(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    value = read();
  }
  return value;
}

const modelsCount = (metrics: string): number => {
  const line = metrics.split("\n").find((l) => l.startsWith('gateway_http_requests_total{route="/v1/models",method="GET",status="200"'));
  return line ? Number(line.split(" ").at(-1)) : 0;
};

describe("PROXY_PROCESSES=2", () => {
  it("serves one port from two workers, and /metrics sums both", async () => {
    expect(await waitFor(workerPids, (pids) => pids.length === 2)).toHaveLength(2);
    const answers = await Promise.all(Array.from({ length: 40 }, () => get("/v1/models", { authorization: `Bearer ${key}` })));
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
    // Whichever worker answers /metrics, the view is the cluster's: 40, not one worker's share.
    for (let i = 0; i < 4; i += 1) {
      const metrics = await get("/metrics");
      expect(metrics.status, metrics.body.slice(0, 300)).toBe(200);
      expect(modelsCount(metrics.body)).toBe(40);
    }
  });

  it("restarts a worker that dies, and keeps serving meanwhile", async () => {
    const before = await waitFor(workerPids, (pids) => pids.length === 2);
    process.kill(before[0]!, "SIGKILL");
    // Once the primary has seen the death, every new connection goes to a live worker.
    await waitFor(workerPids, (pids) => !pids.includes(before[0]!));
    const answers = await Promise.all(Array.from({ length: 10 }, () => get("/v1/models", { authorization: `Bearer ${key}` })));
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
    const after = await waitFor(workerPids, (pids) => pids.length === 2 && !pids.includes(before[0]!));
    expect(after).toHaveLength(2);
    expect(after).not.toContain(before[0]);
    expect(after).toContain(before[1]);
  });

  it("SIGTERM drains every worker and the primary exits 0", async () => {
    const workers = await waitFor(workerPids, (pids) => pids.length === 2);
    // A request in flight when the signal comes still gets its answer.
    const inFlight = fetch(`${proxy.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-test", messages: [{ role: "user", content: "#sim:latency_ms=800 hello" }] }),
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const exited = new Promise<number | null>((resolve) => proxy.child.once("exit", (code) => resolve(code)));
    proxy.child.kill("SIGTERM");
    const answer = await inFlight;
    expect(answer.status).toBe(200);
    expect(await exited).toBe(0);
    for (const pid of workers) expect(() => process.kill(pid, 0)).toThrow();
  });
});
