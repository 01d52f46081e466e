// The operator's docs hold together: every relative link in README.md and docs/ (the alerts'
// runbook_url anchors included) points at a file that exists and, with an anchor, at a heading in it.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "./promtool.ts";

/** GitHub's anchor of a heading: lower-cased, punctuation but hyphens dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\- _]/gu, "").replace(/ /g, "-");
}

function markdownFiles(): string[] {
  const files = [join(REPO_ROOT, "README.md")];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith(".md")) files.push(path);
    }
  };
  walk(join(REPO_ROOT, "docs"));
  return files;
}

function anchorsOf(file: string): Set<string> {
  const text = readFileSync(file, "utf8").replace(/```[\s\S]*?```/g, "");
  return new Set([...text.matchAll(/^#+ (.+)$/gm)].map((match) => anchorOf(match[1]!)));
}

describe("README.md and docs/", () => {
  it("every relative link reaches an existing file and heading", () => {
    const broken: string[] = [];
    for (const file of markdownFiles()) {
      const text = readFileSync(file, "utf8").replace(/```[\s\S]*?```/g, "");
      for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = match[1]!;
        if (/^[a-z]+:/i.test(target)) continue;
        const [path, anchor] = target.split("#") as [string, string | undefined];
        const resolved = path ? normalize(join(dirname(file), path)) : file;
        const where = `${relative(REPO_ROOT, file)}: ${target}`;
        if (!existsSync(resolved)) broken.push(`${where} (no such file)`);
        else if (anchor && resolved.endsWith(".md") && !anchorsOf(resolved).has(anchor)) broken.push(`${where} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("the README links each page of docs/", () => {
    const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
    for (const page of ["docs/operations.md", "docs/benchmarks.md", "docs/ledger-queries.md", "docs/history/benchmarks-2026-11.md"]) expect(readme).toContain(`](${page})`);
  });
});
