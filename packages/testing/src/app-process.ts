// The apps as real processes, started the way a container starts them (`node <app>/src/main.ts`,
// configured only by the environment), ready once `GET /readyz` answers 200.
import { spawn, type ChildProcess } from "node:child_process";

export interface AppProcess {
  name: string;
  url: string;
  child: ChildProcess;
  /** The last lines it printed, for a failure message. */
  output(): string;
  /** SIGTERM, then wait for the exit (SIGKILL after 15 s). */
  stop(): Promise<void>;
}

/**
 * Starts `script` on `port` (`portVariable` names the variable the app reads it from) and resolves
 * once `GET /readyz` answers 200; rejects with the app's last output if it exits or is not ready
 * within 45 s.
 */
export async function startAppProcess(options: { name: string; script: string; env: Record<string, string>; port: number; portVariable?: string; cwd?: string }): Promise<AppProcess> {
  const { name, port } = options;
  const child = spawn(process.execPath, [options.script], {
    cwd: options.cwd,
    // One proxy process unless a test asks for the supervised cluster (the default is one per core),
    // and its metrics on a free port (the default 9090 would collide between processes).
    env: { ...process.env, LOG_LEVEL: "warn", PROXY_PROCESSES: "1", METRICS_PORT: "0", ...options.env, [options.portVariable ?? "PORT"]: String(port) },
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

export function stopProcess(child: ChildProcess): Promise<void> {
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
