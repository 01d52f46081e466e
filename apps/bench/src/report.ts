import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { BenchResults } from "./results.ts";
import { formatMachine, formatOpenStreams, formatRunFigure, formatScaling, formatTable } from "./table.ts";
import { checkTargets, formatTargets } from "./targets.ts";

/** Above this share of a run spent waiting for its core, the proxy's wall-clock figures are not its own. */
const CONTENDED_WAIT_PERCENT = 10;

/** What the floor columns and checks compare with. */
export const FLOOR_NOTE =
  "Floor: the same load as the direct side through a bare node:http + undici pass-through (apps/bench/src/floor-proxy.ts) " +
  "pinned to the proxy's core: what any Node proxy costs per request on this machine. The latency and CPU targets below " +
  "are stated against the floor measured on the same row, so they read the same on any machine.";

/** What the portkey columns compare with (`description`: its version and pins, from scripts/bench.sh). */
export function portkeyNote(description: string): string {
  return (
    `Portkey: the same load as the direct side through ${description || "Portkey's gateway"} (npm @portkey-ai/gateway, its own Node ` +
    "server, headless, loopback) pinned to the proxy's core, forwarding to the simulator (x-portkey-provider openai or " +
    "anthropic, x-portkey-custom-host the simulator). The proxy's side runs the production path: a key with rate limits, " +
    "a quota and a budget, and the billing worker writing the ledger to Postgres."
  );
}

/** A warning when other work on the machine took the proxy's core away during the run ("" when not). */
export function contentionWarning(results: BenchResults): string {
  const waits = results.rows.map((row) => row.proxy.waitPercent).filter(Number.isFinite);
  const worst = waits.length === 0 ? 0 : Math.max(...waits);
  if (worst <= CONTENDED_WAIT_PERCENT) return "";
  return (
    `Warning: the proxy waited for its core up to ${worst.toFixed(0)}% of a run (other work shared the cores). ` +
    "Latency and throughput are inflated by that; CPU µs per request and RSS are still the proxy's own."
  );
}

/**
 * Above these ratios between a side's highest and lowest run of a row, the row's target figure is
 * more the machine's than the code's: CPU per request (concurrency 64), p99 (concurrency 1, whose
 * runs differ more by nature).
 */
const NOISY_SPREAD: Record<string, number> = { "CPU µs/req": 1.25, "p99 ms": 2 };

/** A warning naming the rows whose alternating runs of one side differ beyond NOISY_SPREAD ("" when none). */
export function noiseWarning(results: BenchResults): string {
  const noisy: string[] = [];
  for (const row of results.rows) {
    if (!row.runs) continue;
    const limit = NOISY_SPREAD[row.runs.figure] ?? Number.POSITIVE_INFINITY;
    const sides = (["floor", "proxy"] as const)
      .map((side) => ({ side, values: row.runs![side] }))
      .filter(({ values }) => values.length > 1 && Math.max(...values) > limit * Math.min(...values))
      .map(({ side, values }) => `${side} ${formatRunFigure(row.runs!.figure, Math.min(...values))}-${formatRunFigure(row.runs!.figure, Math.max(...values))}`);
    if (sides.length > 0) noisy.push(`${row.id} (${row.runs.figure}: ${sides.join(", ")})`);
  }
  if (noisy.length === 0) return "";
  return (
    `Warning: on ${noisy.join("; ")} the runs of one side differ by more than ${NOISY_SPREAD["CPU µs/req"]}x (CPU) or ` +
    `${NOISY_SPREAD["p99 ms"]}x (p99): the machine changed speed during the row, and its targets read the machine as much as the code.`
  );
}

/** The whole human-readable report: machine, the table, the open-streams line, the targets. */
export function formatReport(results: BenchResults): string {
  const parts = [`Machine: ${formatMachine(results)}`, "", formatTable(results.rows)];
  for (const warning of [contentionWarning(results), noiseWarning(results)]) if (warning) parts.push("", warning);
  if (results.rows.some((row) => row.floor) || results.floorOpenStreams) parts.push("", FLOOR_NOTE);
  if (results.rows.some((row) => row.portkey)) parts.push("", portkeyNote(results.settings.portkey ?? ""));
  if (results.openStreams) parts.push("", formatOpenStreams(results.openStreams, results.floorOpenStreams ?? null));
  if (results.scaling) parts.push("", formatScaling(results.scaling));
  parts.push("", "Targets:", "", formatTargets(checkTargets(results)));
  return parts.join("\n");
}

/** Raw figures as JSON at `path`, the report as Markdown beside it (`latest.json` -> `latest.md`). */
export async function writeResults(path: string, results: BenchResults): Promise<string> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `${JSON.stringify(results, (_key, value: unknown) => (typeof value === "number" && !Number.isFinite(value) ? null : value), 2)}\n`);
  const markdown = path.replace(/\.json$/, "") + ".md";
  await writeFile(markdown, `# Benchmark ${results.startedAt}\n\n${formatReport(results)}\n`);
  return markdown;
}
