// Redis beyond one node for tests: a real Redis Cluster (3 masters, slots split by hand) and a
// master watched by one Sentinel, each from the local `redis-server` on free ports in a temp
// folder, torn down afterwards. Nothing persists (`--save ""`, no AOF).
import { spawn, type ChildProcess } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { findBinary, freePort, waitForExit } from "./processes.ts";

export interface RedisNodeAddress {
  host: string;
  port: number;
}

export interface LocalRedisTopology {
  /** For a cluster its masters, for Sentinel the sentinels. */
  nodes: RedisNodeAddress[];
  /** `host:port,...` as REDIS_CLUSTER_NODES / REDIS_SENTINELS take it. */
  nodesEnv: string;
  /** Kills every server and deletes the folder. */
  stop(): Promise<void>;
}

const HOST = "127.0.0.1";
const SLOTS = 16_384;
const READY = /Ready to accept connections|Sentinel ID is/;
/** Servers still running, killed if the test process exits without stopping them. */
const running = new Set<ChildProcess>();
process.once("exit", () => running.forEach((child) => child.kill("SIGKILL")));

/** A Redis Cluster of `masters` masters (no replicas), every slot assigned, state ok. */
export async function startRedisCluster(masters = 3): Promise<LocalRedisTopology> {
  const dir = await mkdtemp(join(tmpdir(), "gw-redis-cluster-"));
  const servers: ChildProcess[] = [];
  const stop = () => stopAll(servers, dir);
  try {
    const nodes: (RedisNodeAddress & { busPort: number })[] = [];
    for (let index = 0; index < masters; index += 1) {
      // The bus port is explicit: the default (port + 10000) can fall past 65535 or on a used port.
      const [port, busPort] = [await freePort(), await freePort()];
      const nodeDir = join(dir, String(port));
      await mkdir(nodeDir);
      servers.push(await startServer(nodeDir, ["--port", String(port), "--cluster-enabled", "yes", "--cluster-port", String(busPort), "--cluster-config-file", `nodes-${port}.conf`, "--cluster-node-timeout", "5000"]));
      nodes.push({ host: HOST, port, busPort });
    }
    const clients = nodes.map((node) => new Redis({ host: node.host, port: node.port, lazyConnect: false }));
    try {
      const share = Math.ceil(SLOTS / masters);
      await Promise.all(clients.map((client, index) => client.call("CLUSTER", "ADDSLOTSRANGE", String(index * share), String(Math.min(SLOTS, (index + 1) * share) - 1))));
      for (const node of nodes.slice(1)) await clients[0]!.call("CLUSTER", "MEET", node.host, String(node.port), String(node.busPort));
      await waitFor(async () => {
        const states = await Promise.all(clients.map((client) => client.call("CLUSTER", "INFO") as Promise<string>));
        return states.every((info) => info.includes("cluster_state:ok") && info.includes(`cluster_known_nodes:${masters}`));
      }, "the cluster to reach cluster_state:ok");
    } finally {
      clients.forEach((client) => client.disconnect());
    }
    return { nodes: nodes.map(({ host, port }) => ({ host, port })), nodesEnv: nodes.map((node) => `${node.host}:${node.port}`).join(","), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** One master and one Sentinel watching it as `name`. */
export async function startRedisSentinel(name = "mymaster"): Promise<LocalRedisTopology & { masterPort: number }> {
  const dir = await mkdtemp(join(tmpdir(), "gw-redis-sentinel-"));
  const servers: ChildProcess[] = [];
  const stop = () => stopAll(servers, dir);
  try {
    const masterPort = await freePort();
    servers.push(await startServer(dir, ["--port", String(masterPort)]));
    const sentinelPort = await freePort();
    const config = join(dir, "sentinel.conf");
    // Sentinel rewrites its config file, so it must be a writable file of its own.
    await writeFile(config, `port ${sentinelPort}\nbind ${HOST}\nsentinel monitor ${name} ${HOST} ${masterPort} 1\n`);
    servers.push(await startServer(dir, [], [config, "--sentinel"]));
    const sentinel = new Redis({ host: HOST, port: sentinelPort });
    try {
      await waitFor(async () => ((await sentinel.call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", name)) as string[] | null)?.[1] === String(masterPort), "the sentinel to know its master");
    } finally {
      sentinel.disconnect();
    }
    return { nodes: [{ host: HOST, port: sentinelPort }], nodesEnv: `${HOST}:${sentinelPort}`, masterPort, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function startServer(dir: string, options: string[], leading: string[] = []): Promise<ChildProcess> {
  const binary = findBinary("redis-server", ["/usr/bin", "/usr/local/bin"]);
  const args = [...leading, ...options, "--bind", HOST, "--dir", dir, "--save", "", "--appendonly", "no", "--protected-mode", "no", "--daemonize", "no"];
  const child = spawn(binary, args, { stdio: ["ignore", "pipe", "pipe"] });
  running.add(child);
  child.once("exit", () => running.delete(child));
  let output = "";
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-4000);
      if (!READY.test(output)) return;
      child.stdout?.off("data", onData);
      child.stdout?.resume();
      resolve();
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
    child.once("error", reject);
    child.once("exit", (code, signal) => reject(new Error(`redis-server ${args.join(" ")} exited (${code ?? signal}) before it was ready:\n${output}`)));
  });
  return child;
}

async function stopAll(servers: ChildProcess[], dir: string): Promise<void> {
  await Promise.all(
    servers.splice(0).map((child) => {
      const exited = waitForExit(child);
      child.kill("SIGKILL");
      return exited;
    }),
  );
  await rm(dir, { recursive: true, force: true });
}

async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}
