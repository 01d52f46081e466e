// Small process helpers shared by the private Redis and PostgreSQL servers.
import { execFile, type ChildProcess } from "node:child_process";
import { accessSync, constants, readdirSync } from "node:fs";
import { createServer } from "node:net";
import { delimiter, join } from "node:path";

/** A TCP port nothing listens on right now (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

export function waitForExit(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

/** The first executable `name` on PATH or in `extraDirs`; throws naming what was searched. */
export function findBinary(name: string, extraDirs: string[] = []): string {
  const dirs = [...(process.env.PATH ?? "").split(delimiter).filter(Boolean), ...extraDirs];
  for (const dir of dirs) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  throw new Error(`${name} not found on PATH or in ${extraDirs.join(", ") || "(no other folder)"}`);
}

/** Subfolders of `parent` (newest version first by name), or none when it does not exist. */
export function subfolders(parent: string): string[] {
  try {
    return readdirSync(parent).sort().reverse().map((entry) => join(parent, entry));
  } catch {
    return [];
  }
}

/** Runs a command to completion; rejects with its output when it fails. */
export function run(file: string, args: string[], options: { cwd?: string } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { cwd: options.cwd, maxBuffer: 4 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${file} ${args.join(" ")} failed: ${error.message}\n${stdout}${stderr}`));
      else resolve(stdout);
    });
  });
}
