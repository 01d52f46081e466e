import type { ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { freePort, startAppProcess } from "@gateway/testing";

const MAIN = fileURLToPath(new URL("../src/main.ts", import.meta.url));

export interface ProxyProcess {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** A real proxy process (`node src/main.ts`), ready when /readyz says so. */
export async function spawnProxy(env: Record<string, string>): Promise<ProxyProcess> {
  const app = await startAppProcess({ name: "proxy", script: MAIN, env, port: await freePort() });
  return { url: app.url, child: app.child, stop: app.stop };
}
