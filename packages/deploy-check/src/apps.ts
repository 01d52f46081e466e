// What the repository says about each deployable app, read from the sources the manifests must
// agree with: the Dockerfile (command, port) and the app's own config loader (the variables it
// reads, its defaults). The manifests are checked against these, never against copies.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { loadBillingWorkerConfig } from "../../../apps/billing-worker/src/config.ts";
import { loadControlPlaneConfig } from "../../../apps/control-plane/src/config.ts";
import { loadProxyConfig } from "../../../apps/proxy/src/config.ts";
import { envSchema as simulatorEnvSchema } from "../../../apps/simulator/src/env.ts";

export const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

type Env = Record<string, string | undefined>;

export interface AppFacts {
  /** Deployment, Service, PodDisruptionBudget and container name in the manifests. */
  name: string;
  /** The Dockerfile's CMD, e.g. ["node", "apps/proxy/src/main.ts"]. */
  command: string[];
  /** The Dockerfile's EXPOSE. */
  exposedPort: number;
  /** The port the app listens on when PORT is not set (its config default). */
  defaultPort: number;
  /** Every variable the app's config loader reads. */
  envNames: Set<string>;
  /** Parses an environment the way the app does at boot (throws a ConfigError naming what is wrong). */
  load(env: Env): unknown;
  /** Variable that sets the listen address (HOST; the simulator's is SIMULATOR_HOST). */
  hostVariable: string;
  /** How long SIGTERM waits for work in flight, from the config default (ms). */
  shutdownDeadlineMs: number;
}

/** The three tiers, and the simulator (demo only). */
export const APPS: AppFacts[] = [
  fromLoader("proxy", loadProxyConfig),
  fromLoader("control-plane", loadControlPlaneConfig),
  fromLoader("billing-worker", loadBillingWorkerConfig),
  {
    ...fromDockerfile("simulator"),
    name: "simulator",
    defaultPort: simulatorEnvSchema.parse({}).SIMULATOR_PORT,
    envNames: new Set(Object.keys(simulatorEnvSchema.shape)),
    load: (env) => simulatorEnvSchema.parse(env),
    hostVariable: "SIMULATOR_HOST",
    shutdownDeadlineMs: 0,
  },
];

function fromLoader(name: string, load: (env: Env) => { PORT: number; SHUTDOWN_DEADLINE_MS: number }): AppFacts {
  const defaults = load({});
  return { ...fromDockerfile(name), name, defaultPort: defaults.PORT, envNames: envNamesRead(load), load, hostVariable: "HOST", shutdownDeadlineMs: defaults.SHUTDOWN_DEADLINE_MS };
}

function fromDockerfile(app: string): Pick<AppFacts, "command" | "exposedPort"> {
  const text = readFileSync(`${REPO_ROOT}apps/${app}/Dockerfile`, "utf8");
  const cmd = /^CMD (\[.*\])\s*$/m.exec(text)?.[1];
  const expose = /^EXPOSE (\d+)\s*$/m.exec(text)?.[1];
  if (!cmd || !expose) throw new Error(`apps/${app}/Dockerfile: no CMD [...] or EXPOSE line`);
  return { command: JSON.parse(cmd) as string[], exposedPort: Number(expose) };
}

/** The names a loader reads, seen by handing it an environment that records every lookup. */
function envNamesRead(load: (env: Env) => unknown): Set<string> {
  const read = new Set<string>();
  const record = (key: string | symbol) => typeof key === "string" && read.add(key);
  load(new Proxy({} as Env, { get: (_target, key) => void record(key), has: (_target, key) => (record(key), false) }));
  return read;
}
