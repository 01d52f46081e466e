// The apps as real processes, started the way a container starts them (`node apps/<app>/src/main.ts`,
// configured only by the environment), each on a free port.
import { spawn } from "node:child_process";
import { freePort, startAppProcess, type AppProcess } from "@gateway/testing";
import { REPO_ROOT } from "../apps.ts";

export type { AppProcess };

/** A port for an app, chosen before it starts so the others can be told where it will be. */
export async function appAddress(): Promise<{ port: number; url: string }> {
  const port = await freePort();
  return { port, url: `http://127.0.0.1:${port}` };
}

/** Starts `script` (relative to the repository) on `port` and resolves once `GET /readyz` answers 200. */
export function startApp(name: string, script: string, env: Record<string, string>, port: number, portVariable = "PORT"): Promise<AppProcess> {
  return startAppProcess({ name, script, env, port, portVariable, cwd: REPO_ROOT });
}

/** Runs a repository script to completion; resolves with its stdout, rejects with its output. */
export function runScript(script: string, args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.once("error", reject);
    child.once("exit", (code) => (code === 0 ? resolve(stdout) : reject(new Error(`${script} ${args.join(" ")} exited ${code}:\n${stdout}${stderr}`))));
  });
}
