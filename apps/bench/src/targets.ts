import { addedMs, floorCpuRatio, ledgerAgrees, portkeyCpuRatio, systemFloorCpuRatio, type BenchResults, type RowResult } from "./results.ts";
import type { LatencySummary } from "./percentiles.ts";
import { formatAdded, formatMb, formatRatio } from "./table.ts";
import { crossesShapes } from "./scenarios.ts";

/** One target of issue 18 against what this run measured. */
export interface TargetCheck {
  name: string;
  limit: string;
  measured: string;
  /** null when this run did not measure it (rows or sides left out), or when it has no limit (reported only). */
  pass: boolean | null;
}

const MB = 1024 * 1024;

/** A row's short name in a measured cell: `chat c=1`, `messages stream20 c=64`. */
function rowName(row: RowResult): string {
  const stream = /^stream(\d+)/.exec(row.id)?.[0];
  return `${row.id.includes("messages") ? "messages" : "chat"}${stream ? ` ${stream}` : ""} c=${row.concurrency}`;
}

/** The row with the largest value (NaN values skipped); null when none has one. */
function worst(rows: readonly RowResult[], value: (row: RowResult) => number): { value: number; row: RowResult } | null {
  let found: { value: number; row: RowResult } | null = null;
  for (const row of rows) {
    const measured = value(row);
    if (Number.isFinite(measured) && (!found || measured > found.value)) found = { value: measured, row };
  }
  return found;
}

/** Digits enough that the figure as shown is on the same side of the limit as the figure itself (1.503x missed reads "1.503x", not "1.50x"). */
function digitsFor(value: number, passes: (value: number) => boolean, fewest: number): number {
  let digits = fewest;
  while (digits < 6 && passes(Number(value.toFixed(digits))) !== passes(value)) digits += 1;
  return digits;
}

function check(name: string, limit: string, found: { value: number; row: RowResult } | null, format: (value: number, digits: number) => string, passes: (value: number) => boolean, fewest = 2): TargetCheck {
  if (!found) return { name, limit, measured: "–", pass: null };
  return { name, limit, measured: `${format(found.value, digitsFor(found.value, passes, fewest))} (${rowName(found.row)})`, pass: passes(found.value) };
}

type Latency = "latency" | "firstByte";

/** Proxy's added latency minus the floor's added latency on the same row (the floor's own cost taken out). */
function overFloor(row: RowResult, side: Latency, field: "p50" | "p99"): number {
  if (!row.floor) return Number.NaN;
  const pick = (figures: { latency: LatencySummary; firstByte: LatencySummary | null } | null | undefined) => figures?.[side];
  return addedMs(row.direct?.[side], pick(row.proxy), field) - addedMs(row.direct?.[side], pick(row.floor), field);
}

/** Proxy's added latency minus Portkey's on the same row (negative = below Portkey's). */
function overPortkey(row: RowResult, field: "p50" | "p99"): number {
  if (!row.portkey) return Number.NaN;
  const side: Latency = row.kind === "stream" ? "firstByte" : "latency";
  return addedMs(row.direct?.[side], row.proxy[side], field) - addedMs(row.direct?.[side], row.portkey[side], field);
}

/** A figure shown beside the targets, with no limit of its own. */
function reported(name: string, measuredBytes: number): TargetCheck {
  const mb = Math.round(measuredBytes / MB);
  const measured = Number.isFinite(mb) ? `${mb >= 0 ? "+" : "-"}${Math.abs(mb)} MB` : "–";
  return { name, limit: "none (reported only)", measured, pass: null };
}

const ms = (value: number, digits?: number) => `${formatAdded(value, digits)} ms`;
const times = (value: number, digits?: number) => `${formatRatio(value, digits)}x`;
const megabytes = (mb: number, digits?: number) => `${formatMb(mb * MB, digits)} MB`;

/**
 * Issue 18's targets, each taken as the worst of the rows it is about (chat and messages alike;
 * the row is named beside the figure):
 * - concurrency 1: the proxy's added p50 / p99 at most 0.15 / 1 ms over the floor's added p50 / p99
 *   on the same row, for the whole non-streaming response and the first byte of a stream;
 * - concurrency 64 (JSON and 20-chunk stream rows): proxy CPU per request at most 1.5x the floor's,
 *   the whole system's (proxy + worker + Redis + Postgres) at most 3x;
 * - every row: added latency (first byte for streams) below Portkey's, p50 and p99, and at most a
 *   third of Portkey's CPU per request;
 * - RSS per proxy process at most 150 MB at concurrency 64, 300 MB with the open streams held;
 * - the ledger holds a row for every request the proxy served.
 * The rows that cross shapes (issue 39's baseline) are not theirs: the targets read the same rows
 * with or without them.
 */
export function checkTargets(results: BenchResults): TargetCheck[] {
  const rows = results.rows.filter((row) => !crossesShapes(row.id));
  const json1 = rows.filter((row) => row.kind === "json" && row.concurrency === 1);
  const stream1 = rows.filter((row) => row.kind === "stream" && row.concurrency === 1);
  const c64 = rows.filter((row) => row.concurrency === 64);
  const checks: TargetCheck[] = [
    check("added latency p50 over the floor's, non-streaming, concurrency 1", "<= +0.15 ms", worst(json1, (row) => overFloor(row, "latency", "p50")), ms, (value) => value <= 0.15),
    check("added latency p99 over the floor's, non-streaming, concurrency 1", "<= +1 ms", worst(json1, (row) => overFloor(row, "latency", "p99")), ms, (value) => value <= 1),
    check("added time to first byte p50 over the floor's, streams, concurrency 1", "<= +0.15 ms", worst(stream1, (row) => overFloor(row, "firstByte", "p50")), ms, (value) => value <= 0.15),
    check("added time to first byte p99 over the floor's, streams, concurrency 1", "<= +1 ms", worst(stream1, (row) => overFloor(row, "firstByte", "p99")), ms, (value) => value <= 1),
    check("proxy CPU per request ÷ the floor's, concurrency 64 (JSON and streams)", "<= 1.5x", worst(c64, floorCpuRatio), times, (value) => value <= 1.5),
    check("whole system CPU per request (proxy + worker + Redis + Postgres) ÷ the floor's, concurrency 64", "<= 3x", worst(c64, systemFloorCpuRatio), times, (value) => value <= 3),
    check("added latency p50 minus Portkey's, every row (first byte for streams)", "< 0 ms (below Portkey's)", worst(rows, (row) => overPortkey(row, "p50")), ms, (value) => value < 0),
    check("added latency p99 minus Portkey's, every row (first byte for streams)", "< 0 ms (below Portkey's)", worst(rows, (row) => overPortkey(row, "p99")), ms, (value) => value < 0),
    check("proxy CPU per request ÷ Portkey's, every row", "<= 0.33x (a third)", worst(rows, portkeyCpuRatio), times, (value) => value <= 1 / 3),
    check("RSS per proxy process, concurrency 64", "<= 150 MB", worst(c64, (row) => row.proxy.peakRssBytes / MB), megabytes, (value) => value <= 150, 0),
    reported("proxy RSS minus the floor's on the same row, concurrency 64", worst(c64, (row) => (row.floor ? row.proxy.peakRssBytes - row.floor.peakRssBytes : Number.NaN))?.value ?? Number.NaN),
  ];
  const billedRows = rows.filter((row) => row.system);
  if (billedRows.length > 0) {
    const billed = billedRows.reduce((total, row) => total + row.system!.billed, 0);
    const proxied = billedRows.reduce((total, row) => total + row.system!.proxied, 0);
    checks.push({ name: "ledger rows for the proxied requests, every row", limit: "one per request", measured: `${billed} rows for ${proxied} requests`, pass: billed === proxied });
  }
  const ledger = results.ledger;
  if (ledger) {
    checks.push({
      name: "the whole ledger after the runs: usage_records rows, and the requests each day-total table adds up",
      limit: "each = the requests served",
      measured: `${ledger.records} rows; ${ledger.keyDays} / ${ledger.aggregates} / ${ledger.vendorDays} (key days / aggregates / vendor days); ${ledger.proxied} served`,
      pass: ledgerAgrees(ledger),
    });
  }
  const open = results.openStreams;
  if (open) {
    checks.push({ name: `RSS per proxy process with ${open.streams} open streams`, limit: "<= 300 MB", measured: megabytes(open.peakRssBytes / MB), pass: open.peakRssBytes / MB <= 300 });
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
