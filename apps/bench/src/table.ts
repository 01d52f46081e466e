import type { LatencySummary } from "./percentiles.ts";
import { addedMs, floorCpuRatio, portkeyCpuRatio, systemFloorCpuRatio, throughputRatio, type BenchResults, type OpenStreamsResult, type RowResult, type RunFigures, type ScalingResult, type SystemFigures } from "./results.ts";

const DASH = "–";

export function formatMs(value: number, digits = 2): string {
  if (!Number.isFinite(value)) return DASH;
  return Math.abs(value) < 10 ? value.toFixed(digits) : value.toFixed(Math.max(1, digits - 1));
}

/** An added latency, always signed so a negative difference (noise) reads as one. */
export function formatAdded(value: number, digits = 2): string {
  if (!Number.isFinite(value)) return DASH;
  return `${value >= 0 ? "+" : "-"}${formatMs(Math.abs(value), digits)}`;
}

export function formatRate(value: number): string {
  return Number.isFinite(value) ? Math.round(value).toLocaleString("en-US") : DASH;
}

export function formatRatio(value: number, digits = 2): string {
  return Number.isFinite(value) ? value.toFixed(digits) : DASH;
}

export function formatMb(bytes: number, digits = 0): string {
  return Number.isFinite(bytes) && bytes > 0 ? (bytes / 1024 / 1024).toFixed(digits) : DASH;
}

/** One run's target figure (`RowResult.runs`): milliseconds with two decimals, CPU in whole µs. */
export function formatRunFigure(figure: string, value: number): string {
  return value.toFixed(figure.endsWith(" ms") ? 2 : 0);
}

export function formatUs(value: number): string {
  return Number.isFinite(value) ? value.toFixed(0) : DASH;
}

export function formatPercent(value: number): string {
  return Number.isFinite(value) ? value.toFixed(0) : DASH;
}

/** The load side's wait for its core: the driver's and the simulator's, added up. */
function loadWait(figures: RunFigures | null): number {
  if (!figures?.wait) return Number.NaN;
  return figures.wait.driver + (Number.isFinite(figures.wait.simulator) ? figures.wait.simulator : 0);
}

function triple(summary: LatencySummary | null | undefined): string {
  if (!summary) return DASH;
  return `${formatMs(summary.p50)} / ${formatMs(summary.p99)} / ${formatMs(summary.p999)}`;
}

const HEADER = [
  "row",
  "conc",
  "direct req/s",
  "proxy req/s",
  "ratio",
  "direct p50 / p99 / p99.9 ms",
  "proxy p50 / p99 / p99.9 ms",
  "added p50 ms",
  "added p99 ms",
  "added p99.9 ms",
  "floor added p50 / p99 ms",
  "portkey added p50 / p99 ms",
  "proxy CPU µs/req",
  "floor CPU µs/req",
  "proxy/floor CPU",
  "portkey CPU µs/req",
  "proxy/portkey CPU",
  "worker / Redis / Postgres CPU µs/req",
  "system CPU µs/req",
  "system/floor CPU",
  "proxy CPU %",
  "proxy wait %",
  "load wait % d/f/k/p",
  "proxy RSS MB",
  "floor RSS MB",
  "portkey RSS MB",
  "billed / proxied",
  "errors d/f/k/p",
];

/** Ledger rows written for the proxied run over the requests the proxy counted ("–" when not measured). */
export function formatBilled(system: SystemFigures | null | undefined): string {
  if (!system) return DASH;
  return `${formatRate(system.billed)} / ${formatRate(system.proxied)}`;
}

function pair(direct: LatencySummary | null | undefined, side: LatencySummary | null | undefined): string {
  if (!side) return DASH;
  return `${formatAdded(addedMs(direct, side, "p50"))} / ${formatAdded(addedMs(direct, side, "p99"))}`;
}

function line(cells: readonly string[]): string {
  return `| ${cells.join(" | ")} |`;
}

/** One table line per latency measure: JSON rows have one, stream rows two (first and last byte). */
function rowLines(row: RowResult): string[] {
  const measures: Array<{ suffix: string; pick: (figures: RunFigures | null) => LatencySummary | null | undefined }> =
    row.kind === "stream"
      ? [
          { suffix: " (first byte)", pick: (figures) => figures?.firstByte },
          { suffix: " (last byte)", pick: (figures) => figures?.latency },
        ]
      : [{ suffix: "", pick: (figures) => figures?.latency }];
  return measures.map(({ suffix, pick }, index) => {
    const first = index === 0;
    const direct = pick(row.direct);
    const floor = pick(row.floor);
    const portkey = pick(row.portkey ?? null);
    const proxy = pick(row.proxy);
    const system = row.system;
    return line([
      `${row.label}${suffix}`,
      String(row.concurrency),
      first ? formatRate(row.direct?.requestsPerSecond ?? Number.NaN) : "",
      first ? formatRate(row.proxy.requestsPerSecond) : "",
      first ? formatRatio(throughputRatio(row)) : "",
      triple(direct),
      triple(proxy),
      formatAdded(addedMs(direct, proxy, "p50")),
      formatAdded(addedMs(direct, proxy, "p99")),
      formatAdded(addedMs(direct, proxy, "p999")),
      pair(direct, floor),
      pair(direct, portkey),
      first ? formatUs(row.proxy.cpuUsPerRequest) : "",
      first ? formatUs(row.floor?.cpuUsPerRequest ?? Number.NaN) : "",
      first ? formatRatio(floorCpuRatio(row)) : "",
      first ? formatUs(row.portkey?.cpuUsPerRequest ?? Number.NaN) : "",
      first ? formatRatio(portkeyCpuRatio(row)) : "",
      first ? (system ? `${formatUs(system.workerUsPerRequest)} / ${formatUs(system.redisUsPerRequest)} / ${formatUs(system.postgresUsPerRequest)}` : DASH) : "",
      first ? formatUs(system?.wholeUsPerRequest ?? Number.NaN) : "",
      first ? formatRatio(systemFloorCpuRatio(row)) : "",
      first ? formatPercent(row.proxy.cpuPercent) : "",
      first ? formatPercent(row.proxy.waitPercent) : "",
      first ? [row.direct, row.floor, row.portkey ?? null, row.proxy].map((side) => formatPercent(loadWait(side))).join("/") : "",
      first ? formatMb(row.proxy.peakRssBytes) : "",
      first ? formatMb(row.floor?.peakRssBytes ?? Number.NaN) : "",
      first ? formatMb(row.portkey?.peakRssBytes ?? Number.NaN) : "",
      first ? formatBilled(system) : "",
      first ? [row.direct?.errors, row.floor?.errors, row.portkey?.errors, row.proxy.errors].map((errors) => errors ?? DASH).join("/") : "",
    ]);
  });
}

/**
 * The one results table (Markdown, readable in a terminal too). "wait %" is time a process was
 * runnable but had no core (run-queue wait, /proc/<pid>/schedstat) as a share of the run: the
 * proxy's, and the load side's (driver + simulator) during the direct, the floor and the proxied
 * run. On a machine that runs nothing else these stay low; high values mean other work shared the
 * cores. The floor columns are the same load through a bare node:http + undici pass-through on the
 * proxy's core (floor-proxy.ts): what any Node proxy costs on this machine ("–" when not run). The
 * portkey columns are the same load through Portkey's gateway on the same core. worker / Redis /
 * Postgres are their CPU per proxied request (read after the ledger caught up), system is those
 * plus the proxy's, and billed / proxied the ledger rows the run wrote over the requests the proxy
 * counted (always equal: the bench fails otherwise).
 */
export function formatTable(rows: readonly RowResult[]): string {
  const separator = line(HEADER.map((cell, index) => (index < 2 ? "---" : "---:")));
  return [line(HEADER), separator, ...rows.flatMap(rowLines)].join("\n");
}

export function formatOpenStreams(result: OpenStreamsResult, floor: OpenStreamsResult | null = null): string {
  return (
    `${result.streams} concurrent streams through one proxy process: peak ${result.peakOpen} open at once, ` +
    `${result.completed} completed, ${result.errors} errors${result.firstError ? ` (first: ${result.firstError})` : ""}; ` +
    `proxy RSS ${formatMb(result.rssBeforeBytes)} MB before, ${formatMb(result.peakRssBytes)} MB peak; ` +
    `proxy CPU ${result.cpuPercent.toFixed(0)}% of one core over ${result.seconds.toFixed(1)} s ` +
    `(${formatUs(result.cpuUsPerStream)} µs per stream)` +
    (floor
      ? `. The same ${floor.streams} streams through the floor: peak ${floor.peakOpen} open, ${floor.errors} errors; ` +
        `floor RSS ${formatMb(floor.rssBeforeBytes)} MB before, ${formatMb(floor.peakRssBytes)} MB peak; ` +
        `floor CPU ${formatUs(floor.cpuUsPerStream)} µs per stream`
      : "")
  );
}

export function formatScaling(result: ScalingResult): string {
  const side = (processes: number, figures: ScalingResult["one"]) =>
    `${processes} process${processes === 1 ? "" : "es"}: ${formatRate(figures.requestsPerSecond)} req/s, p50 ${formatMs(figures.latency.p50)} ms, ` +
    `CPU ${formatUs(figures.cpuUsPerRequest)} µs/req (all processes; the load side ${formatUs(figures.loadCpuUsPerRequest)}), largest process RSS ${formatMb(figures.peakRssBytes)} MB, ${figures.errors} errors`;
  const ratio = result.many.requestsPerSecond / result.one.requestsPerSecond;
  const alone = result.loadAlone;
  return (
    `Scaling (${result.label}, concurrency ${result.concurrency}; PROXY_PROCESSES=1 pinned to the proxy's core, ` +
    `PROXY_PROCESSES=${result.processes} on both cores with the load): the load side alone ${formatRate(alone.requestsPerSecond)} req/s ` +
    `(${formatUs(alone.loadCpuUsPerRequest)} µs/req, ${alone.errors} errors); ${side(1, result.one)}; ${side(result.processes, result.many)}; ` +
    `throughput ${formatRatio(ratio)}x`
  );
}

export function formatMachine(results: BenchResults): string {
  const { machine, settings } = results;
  return (
    `${machine.nproc} cores (${machine.cpuModel}), ${machine.memoryGiB} GiB, Linux ${machine.kernel}, Node ${machine.node}; ` +
    `proxy pinned to core ${settings.proxyCore}${settings.proxyNodeFlags ? ` (node ${settings.proxyNodeFlags})` : ""}, ` +
    `simulator, load generator, billing worker, Redis and Postgres on core ${settings.loadCore}` +
    `${settings.billingApart ? " (the worker held still while the proxy is measured, draining the queue between runs)" : ""}; ` +
    `${settings.portkey ? `${settings.portkey} on the proxy's core; ` : ""}` +
    `${settings.durationS} s per measured run after ${settings.warmupS} s warm-up; simulator: ${settings.simulator}; ` +
    `load average ${machine.loadBefore} before, ${machine.loadAfter} after`
  );
}
