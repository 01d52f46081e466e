// The apps as real processes, started the way a container starts them (`node apps/<app>/src/main.ts`,
// configured only by the environment), each on a free port.
import { spawn, type ChildProcess } from "node:child_process";
import { freePort } from "@gateway/testing";
import { REPO_ROOT } from "../apps.ts";

export interface AppProcess {
  name: string;
  url: string;
  child: ChildProcess;
  /** The last lines it printed, for a failure message. */
  output(): string;
  /** SIGTERM, then wait for the exit (SIGKILL after 15 s). */
  stop(): Promise<void>;
}

/** A port for an app, chosen before it starts so the others can be told where it will be. */
export async function appAddress(): Promise<{ port: number; url: string }> {
  const port = await freePort();
  return { port, url: `http://127.0.0.1:${port}` };
}

/** Starts `script` (relative to the repository) on `port` and resolves once `GET /readyz` answers 200. */
export async function startApp(name: string, script: string, env: Record<string, string>, port: number, portVariable = "PORT"): Promise<AppProcess> {
  const child = spawn(process.execPath, [script], {
    cwd: REPO_ROOT,
    env: { ...process.env, LOG_LEVEL: "warn", ...env, [portVariable]: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-8000));
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const app: AppProcess = {
    name,
    url: `http://127.0.0.1:${port}`,
    child,
    output: () => output,
    stop: () => stopProcess(child),
  };
  const deadline = Date.now() + 45_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}:\n${output}`);
    const ready = await fetch(`${app.url}/readyz`).then((response) => response.ok, () => false);
    if (ready) return app;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await app.stop();
  throw new Error(`${name} was not ready within 45 s:\n${output}`);
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

function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill("SIGTERM");
  });
}
