import type { LatencySummary } from "./percentiles.ts";
import type { BenchResults, ProxyCounters, RowResult, RunFigures } from "./results.ts";

export function latency(p50: number, p99: number, p999: number): LatencySummary {
  return { count: 1000, mean: p50, p50, p99, p999, max: p999 };
}

export function figures(requestsPerSecond: number, summary: LatencySummary, firstByte: LatencySummary | null = null): RunFigures {
  return { completed: requestsPerSecond * 6, errors: 0, seconds: 6, requestsPerSecond, latency: summary, firstByte, wait: { driver: 3, simulator: 2 } };
}

/** A server side (proxy or floor): its figures with the counters read around them. */
export function counted(run: RunFigures, counters: { cpu: number; rssMb: number }): RunFigures & ProxyCounters {
  return { ...run, cpuUsPerRequest: counters.cpu, cpuPercent: 90, peakRssBytes: counters.rssMb * 1024 * 1024, waitPercent: 4 };
}

export function jsonRow(
  concurrency: number,
  direct: RunFigures,
  proxy: RunFigures,
  counters: { cpu: number; rssMb: number },
  floor: { run: RunFigures; cpu: number; rssMb: number } | null = null,
): RowResult {
  return {
    id: `chat-c${concurrency}`,
    label: "chat completions",
    kind: "json",
    concurrency,
    direct,
    floor: floor ? counted(floor.run, floor) : null,
    proxy: counted(proxy, counters),
  };
}

export function results(rows: RowResult[]): BenchResults {
  return {
    startedAt: "2026-01-01T00:00:00.000Z",
    machine: { nproc: 2, cpuModel: "Test CPU", node: "v24.0.0", kernel: "6.0", memoryGiB: 24, loadBefore: "0.10 0.20 0.30", loadAfter: "1.00 0.50 0.40" },
    settings: { durationS: 6, warmupS: 1, proxyCore: "0", loadCore: "1", simulator: "no delay", proxyNodeFlags: "" },
    rows,
    openStreams: null,
  };
}
