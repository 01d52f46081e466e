import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

/** This folder: the golden files live under it, one folder per direction. */
export const GOLDENS_DIR = dirname(fileURLToPath(import.meta.url));

/** `UPDATE_GOLDENS=1`: write what the code produces instead of comparing with it. */
export const UPDATING = process.env.UPDATE_GOLDENS === "1";

/** Every golden file under the direction folders (`inputs/` and the harness's own files are not goldens). */
export function goldenFiles(directions: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else out.push(relative(GOLDENS_DIR, path));
    }
  };
  for (const direction of directions) if (existsSync(join(GOLDENS_DIR, direction))) walk(join(GOLDENS_DIR, direction));
  return out.sort();
}

/**
 * The committed golden at `name` (relative to this folder), for the caller to compare with what the
 * code produced; under UPDATE_GOLDENS=1, `actual` is written there first (so it compares equal).
 */
export function golden(name: string, actual: string): string | null {
  const path = join(GOLDENS_DIR, name);
  if (UPDATING && (!existsSync(path) || readFileSync(path, "utf8") !== actual)) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, actual);
  }
  return existsSync(path) ? readFileSync(path, "utf8") : null;
}

/** Removes golden files no case produces any more (UPDATE_GOLDENS=1 only). */
export function removeGoldens(names: readonly string[]): void {
  for (const name of names) rmSync(join(GOLDENS_DIR, name));
}
