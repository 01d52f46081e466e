import { addedMs, type BenchResults, type RowResult } from "./results.ts";
import { formatAdded, formatMb, formatUs } from "./table.ts";

/** One target of issue 7 against what this run measured. */
export interface TargetCheck {
  name: string;
  limit: string;
  measured: string;
  /** null when this run did not measure it (rows left out with BENCH_ROWS). */
  pass: boolean | null;
}

function worst(rows: readonly RowResult[], value: (row: RowResult) => number): number {
  const values = rows.map(value).filter(Number.isFinite);
  return values.length === 0 ? Number.NaN : Math.max(...values);
}

function check(name: string, limit: number, unit: string, measured: number, format: (value: number) => string): TargetCheck {
  if (!Number.isFinite(measured)) return { name, limit: `<= ${limit} ${unit}`, measured: "–", pass: null };
  return { name, limit: `<= ${limit} ${unit}`, measured: `${format(measured)} ${unit}`, pass: measured <= limit };
}

/**
 * The targets, each taken as the worst of the rows it is about (chat and messages alike):
 * added latency at concurrency 1, added first byte of a streamed reply at concurrency 1, CPU per
 * request at concurrency 64 (non-streaming) and for the 20-chunk stream row, RSS at concurrency 64.
 */
export function checkTargets(results: BenchResults): TargetCheck[] {
  const rows = results.rows;
  const json1 = rows.filter((row) => row.kind === "json" && row.concurrency === 1);
  const json64 = rows.filter((row) => row.kind === "json" && row.concurrency === 64);
  const stream1 = rows.filter((row) => row.kind === "stream" && row.concurrency === 1);
  const stream20 = rows.filter((row) => row.id.startsWith("stream20"));
  const checks: TargetCheck[] = [
    check("added latency p50, concurrency 1", 0.15, "ms", worst(json1, (row) => addedMs(row.direct?.latency, row.proxy.latency, "p50")), formatAdded),
    check("added latency p99, concurrency 1", 1, "ms", worst(json1, (row) => addedMs(row.direct?.latency, row.proxy.latency, "p99")), formatAdded),
    check("added time to first streamed byte p50, concurrency 1", 1, "ms", worst(stream1, (row) => addedMs(row.direct?.firstByte, row.proxy.firstByte, "p50")), formatAdded),
    check("proxy CPU per request, non-streaming, concurrency 64", 150, "µs", worst(json64, (row) => row.proxy.cpuUsPerRequest), formatUs),
    check("proxy CPU per request, 20-chunk stream", 250, "µs", worst(stream20, (row) => row.proxy.cpuUsPerRequest), formatUs),
    check("proxy RSS at concurrency 64", 150, "MB", worst(json64, (row) => row.proxy.peakRssBytes) / 1024 / 1024, (value) => formatMb(value * 1024 * 1024)),
  ];
  const open = results.openStreams;
  if (open) {
    checks.push(check(`proxy RSS with ${open.streams} open streams`, 300, "MB", open.peakRssBytes / 1024 / 1024, (value) => formatMb(value * 1024 * 1024)));
    checks.push({
      name: `${open.streams} concurrent streams, none errored`,
      limit: `${open.streams} open at once, 0 errors`,
      measured: `${open.peakOpen} open at once, ${open.errors} errors`,
      pass: open.errors === 0 && open.peakOpen === open.streams && open.completed === open.streams,
    });
  }
  return checks;
}

export function formatTargets(checks: readonly TargetCheck[]): string {
  const lines = ["| target | limit | measured | |", "|---|---|---:|---|"];
  for (const item of checks) {
    const verdict = item.pass === null ? "not measured" : item.pass ? "met" : "**missed**";
    lines.push(`| ${item.name} | ${item.limit} | ${item.measured} | ${verdict} |`);
  }
  return lines.join("\n");
}
