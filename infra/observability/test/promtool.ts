// promtool (Debian's `prometheus` package) for the alert rules' tests: $PROMTOOL_PATH, default
// /usr/bin/promtool, installed with apt by scripts/lib/prometheus.sh when missing (as
// scripts/test.sh does before the suite).
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const OBSERVABILITY_DIR = join(dirname(fileURLToPath(import.meta.url)), "..");
export const REPO_ROOT = join(OBSERVABILITY_DIR, "../..");

export function promtoolPath(): string {
  const path = process.env.PROMTOOL_PATH ?? "/usr/bin/promtool";
  if (!existsSync(path)) execFileSync("bash", [join(REPO_ROOT, "scripts/lib/prometheus.sh")], { stdio: "inherit", env: { ...process.env, PROMTOOL_PATH: path } });
  return path;
}

export interface PromtoolRun {
  status: number | null;
  output: string;
}

/** Runs `promtool args...` in `cwd` (default infra/observability); never throws on a non-zero exit. */
export function promtool(args: string[], cwd = OBSERVABILITY_DIR): PromtoolRun {
  const run = spawnSync(promtoolPath(), args, { cwd, encoding: "utf8", timeout: 60_000 });
  if (run.error) throw run.error;
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}
