// Before the console's end-to-end tests: the built console must match its sources (turbo builds it
// first; a direct `vitest run` builds it here when a source is newer than dist/index.html), and
// Chromium must be installed (scripts/lib/chromium.sh installs Debian's when it is missing).
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { CHROMIUM_PATH } from "./browser.ts";

const PACKAGE = fileURLToPath(new URL("../../", import.meta.url));
const ROOT = join(PACKAGE, "../..");
const SOURCES = ["src", "public", "index.html", "vite.config.ts", "package.json"];

function newestChange(path: string): number {
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  return readdirSync(path).reduce((newest, name) => Math.max(newest, newestChange(join(path, name))), stats.mtimeMs);
}

export default async function setup(): Promise<void> {
  if (!existsSync(CHROMIUM_PATH)) {
    execFileSync("bash", [join(ROOT, "scripts/lib/chromium.sh")], { stdio: "inherit", env: { ...process.env, CHROMIUM_PATH } });
  }
  const index = join(PACKAGE, "dist/index.html");
  const builtAt = existsSync(index) ? statSync(index).mtimeMs : 0;
  const changedAt = Math.max(...SOURCES.map((source) => newestChange(join(PACKAGE, source))));
  // A child process: vitest's NODE_ENV=test would otherwise give the bundle React's development build.
  if (changedAt > builtAt) {
    execFileSync(process.execPath, [join(PACKAGE, "node_modules/vite/bin/vite.js"), "build", "--logLevel", "warn"], { cwd: PACKAGE, stdio: "inherit", env: { ...process.env, NODE_ENV: "production" } });
  }
}
