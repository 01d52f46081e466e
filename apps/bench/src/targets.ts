import { addedMs, floorCpuRatio, type BenchResults, type RowResult } from "./results.ts";
import { formatAdded, formatMb, formatRatio, formatUs } from "./table.ts";

/** One target of issue 7 against what this run measured. */
export interface TargetCheck {
  name: string;
  limit: string;
  measured: string;
  /** null when this run did not measure it (rows left out with BENCH_ROWS), or when it has no limit (reported only). */
  pass: boolean | null;
}

/** The issue's floor: a bare Node pass-through spent 40-50 µs per request on its reference machine. */
export const ISSUE_FLOOR_US = 45;
const MB = 1024 * 1024;

function worst(rows: readonly RowResult[], value: (row: RowResult) => number): number {
  const values = rows.map(value).filter(Number.isFinite);
  return values.length === 0 ? Number.NaN : Math.max(...values);
}

function check(name: string, limit: number, unit: string, measured: number, format: (value: number) => string): TargetCheck {
  if (!Number.isFinite(measured)) return { name, limit: `<= ${limit} ${unit}`, measured: "–", pass: null };
  return { name, limit: `<= ${limit} ${unit}`, measured: `${format(measured)} ${unit}`, pass: measured <= limit };
}

/**
 * An absolute CPU limit restated against the floor measured on the same row: the limit in µs over
 * the issue's floor is the multiple of the floor's CPU the proxy may spend, on any machine.
 */
function floorCpuCheck(name: string, limitUs: number, measured: number): TargetCheck {
  const ratio = limitUs / ISSUE_FLOOR_US;
  const limit = `<= ${formatRatio(ratio)}x (${limitUs} µs ÷ the issue's ${ISSUE_FLOOR_US} µs floor)`;
  if (!Number.isFinite(measured)) return { name, limit, measured: "–", pass: null };
  return { name, limit, measured: `${formatRatio(measured)}x`, pass: measured <= ratio };
}

/** A figure shown beside the targets, with no limit of its own. */
function reported(name: string, measuredBytes: number): TargetCheck {
  const mb = Math.round(measuredBytes / MB);
  const measured = Number.isFinite(mb) ? `${mb >= 0 ? "+" : "-"}${Math.abs(mb)} MB` : "–";
  return { name, limit: "none (reported only)", measured, pass: null };
}

/**
 * The issue's targets, each taken as the worst of the rows it is about (chat and messages alike):
 * added latency at concurrency 1, added first byte of a streamed reply at concurrency 1, CPU per
 * request at concurrency 64 (non-streaming) and for the 20-chunk stream row, RSS at concurrency 64.
 * Beside each CPU limit, the same limit against the floor measured on the same row (the limit over
 * the issue's 45 µs floor, as a multiple of this machine's floor); beside each RSS limit, the
 * proxy's RSS minus the floor's (no limit: the issue gave none relative to a floor).
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
    floorCpuCheck("proxy CPU per request ÷ the floor's on the same row, non-streaming, concurrency 64", 150, worst(json64, floorCpuRatio)),
    check("proxy CPU per request, 20-chunk stream", 250, "µs", worst(stream20, (row) => row.proxy.cpuUsPerRequest), formatUs),
    floorCpuCheck("proxy CPU per request ÷ the floor's on the same row, 20-chunk stream", 250, worst(stream20, floorCpuRatio)),
    check("proxy RSS at concurrency 64", 150, "MB", worst(json64, (row) => row.proxy.peakRssBytes) / MB, (value) => formatMb(value * MB)),
    reported("proxy RSS minus the floor's on the same row, concurrency 64", worst(json64, (row) => (row.floor ? row.proxy.peakRssBytes - row.floor.peakRssBytes : Number.NaN))),
  ];
  const open = results.openStreams;
  if (open) {
    checks.push(check(`proxy RSS with ${open.streams} open streams`, 300, "MB", open.peakRssBytes / MB, (value) => formatMb(value * MB)));
    const floorOpen = results.floorOpenStreams;
    if (floorOpen) checks.push(reported(`proxy RSS minus the floor's with ${open.streams} open streams`, open.peakRssBytes - floorOpen.peakRssBytes));
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
    const verdict = item.pass === null ? (item.measured === "–" ? "not measured" : "–") : item.pass ? "met" : "**missed**";
    lines.push(`| ${item.name} | ${item.limit} | ${item.measured} | ${verdict} |`);
  }
  return lines.join("\n");
}
