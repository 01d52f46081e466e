// A throwaway PostgreSQL cluster of a test's own (initdb into a temp folder), for tests that stop,
// restart or kill the database. Never the shared server: other tests keep using that.
import { spawnSync } from "node:child_process";
import { chown, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { applyMigrations, ensureDatabase } from "@gateway/db";
import { findBinary, freePort, run, subfolders } from "./processes.ts";

export interface PrivatePostgres {
  /** URL of the database `gateway` on it, migrated unless asked otherwise. */
  url: string;
  port: number;
  /** Fast shutdown: open sessions are ended, committed data is kept. */
  stop(): Promise<void>;
  /** Starts it again on the same port and data folder (stopping it first if it runs). */
  restart(): Promise<void>;
  /** Immediate shutdown, as a crash: the next start recovers from the WAL. */
  kill(): Promise<void>;
  /** Stops it if it runs and deletes its folder. */
  destroy(): Promise<void>;
}

const LIBRARY_DIRS = subfolders("/usr/lib/postgresql").map((dir) => join(dir, "bin"));

/**
 * PostgreSQL refuses to run as root: when we are root (as on the project's machines) every
 * server command runs as the `postgres` user through `runuser`, on a folder that user owns.
 */
function asServerUser(binary: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ["runuser", ["-u", "postgres", "--", binary, ...args]] : [binary, args];
}

export async function startPrivatePostgres(options: { migrate?: boolean } = {}): Promise<PrivatePostgres> {
  const initdb = findBinary("initdb", LIBRARY_DIRS);
  const pgCtl = findBinary("pg_ctl", LIBRARY_DIRS);
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), "gw-pg-"));
  const data = join(dir, "data");
  if (process.getuid?.() === 0) {
    const uid = Number(await run("id", ["-u", "postgres"]));
    const gid = Number(await run("id", ["-g", "postgres"]));
    await chown(dir, uid, gid);
  }
  // Durability settings off: the data only has to survive a server restart, not a machine crash.
  const serverOptions = `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=off -c full_page_writes=off -c max_connections=100`;
  const pgCtlRun = (args: string[]) => run(...asServerUser(pgCtl, args));
  let running = false;
  const start = async () => {
    await pgCtlRun(["-D", data, "-l", join(dir, "postgres.log"), "-w", "-t", "30", "-o", serverOptions, "start"]);
    running = true;
  };
  const halt = async (mode: "fast" | "immediate") => {
    if (!running) return;
    running = false;
    await pgCtlRun(["-D", data, "-m", mode, "-w", "stop"]);
  };
  const killOnExit = () => {
    if (running) spawnSync(...asServerUser(pgCtl, ["-D", data, "-m", "immediate", "stop"]));
  };
  process.once("exit", killOnExit);
  const destroy = async () => {
    await halt("immediate").catch(() => undefined);
    process.off("exit", killOnExit);
    await rm(dir, { recursive: true, force: true });
  };

  const url = `postgresql://postgres@127.0.0.1:${port}/gateway`;
  try {
    await run(...asServerUser(initdb, ["-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync", "--no-instructions"]));
    await start();
    await ensureDatabase(url);
    if (options.migrate ?? true) await applyMigrations(url);
  } catch (error) {
    await destroy();
    throw error;
  }
  return {
    url,
    port,
    stop: () => halt("fast"),
    async restart() {
      await halt("fast");
      await start();
    },
    kill: () => halt("immediate"),
    destroy,
  };
}
