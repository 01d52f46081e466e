// A Redis server of a test's own, for tests that stop, restart or kill it. Never the shared one:
// other tests keep using that while this one goes down.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findBinary, freePort, waitForExit } from "./processes.ts";

export interface PrivateRedis {
  url: string;
  port: number;
  /** Graceful stop (SIGTERM): with persistence on, everything written so far is on disk. */
  stop(): Promise<void>;
  /** Starts it again on the same port and data directory (stopping it first if it runs). */
  restart(): Promise<void>;
  /** SIGKILL: no shutdown, no final write. */
  kill(): Promise<void>;
  /** Kills it if it runs and deletes its data directory. */
  destroy(): Promise<void>;
}

export interface PrivateRedisOptions {
  /**
   * Keep the data across a restart, as a production Redis holding a queue must: an append-only
   * file (`--appendonly yes`, no RDB snapshots). Off: every restart starts empty. Default on.
   */
  persist?: boolean;
  /**
   * When the append-only file is fsynced: `always` on every write (default; Redis 7 answers only
   * after the fsync), `everysec` once a second, the production setting (docker-compose.yml).
   */
  appendfsync?: "always" | "everysec";
  /** The server binary (default `redis-server` on PATH, else /usr/bin/redis-server). */
  binary?: string;
}

const READY = /Ready to accept connections/;

export async function startPrivateRedis(options: PrivateRedisOptions = {}): Promise<PrivateRedis> {
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), "gw-redis-"));
  const persist = options.persist ?? true;
  const args = [
    "--port", String(port),
    "--bind", "127.0.0.1",
    "--dir", dir,
    "--save", "",
    "--appendonly", persist ? "yes" : "no",
    "--appendfsync", options.appendfsync ?? "always",
    "--protected-mode", "no",
    "--daemonize", "no",
  ];
  const binary = options.binary ?? findBinary("redis-server", ["/usr/bin", "/usr/local/bin"]);
  let child: ChildProcess | null = null;
  const killOnExit = () => child?.kill("SIGKILL");
  process.once("exit", killOnExit);

  const launch = async () => {
    const started = spawn(binary, args, { stdio: ["ignore", "pipe", "pipe"] });
    child = started;
    let output = "";
    await new Promise<void>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        output = (output + chunk.toString()).slice(-4000);
        if (READY.test(output)) {
          started.stdout?.off("data", onData);
          started.stdout?.resume();
          resolve();
        }
      };
      started.stdout?.on("data", onData);
      started.stderr?.on("data", (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
      started.once("error", reject);
      started.once("exit", (code, signal) => reject(new Error(`redis-server exited (${code ?? signal}) before it was ready:\n${output}`)));
    });
  };
  const halt = async (signal: NodeJS.Signals) => {
    const running = child;
    child = null;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = waitForExit(running);
    running.kill(signal);
    await exited;
  };

  await launch().catch(async (error: unknown) => {
    await halt("SIGKILL");
    await rm(dir, { recursive: true, force: true });
    throw error;
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop: () => halt("SIGTERM"),
    async restart() {
      await halt("SIGTERM");
      await launch();
    },
    kill: () => halt("SIGKILL"),
    async destroy() {
      await halt("SIGKILL");
      process.off("exit", killOnExit);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
