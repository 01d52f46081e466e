import { UPSTREAM_HEALTH_STALE_MS, type CircuitState, type ProcessReport } from "./upstream-health-reports.ts";

/** One upstream over every process that reported it within the stale bound. */
export interface UpstreamHealth {
  name: string;
  /** `reporting`: fresh figures; `stale`: only reports older than the bound; `no_data`: no process named it. */
  state: "reporting" | "stale" | "no_data";
  /** The newest report naming this upstream (a stale one too), epoch ms; null when none. */
  reportedAt: number | null;
  /** The fresh processes whose figures are summed here. */
  processes: string[];
  /** The worst state of any process's breaker: one open circuit is an open upstream for its traffic. */
  circuit: CircuitState | null;
  /** Attempts in the last minute, summed over the processes. */
  attempts: number;
  /** Failed attempts per cause, summed. */
  failures: Record<string, number>;
  /**
   * Latencies over the last minute: the highest of the processes' own figures. Percentiles of
   * different processes cannot be merged exactly; the worst one is what an operator acts on.
   */
  p50Ms: number | null;
  p99Ms: number | null;
  ttfbP50Ms: number | null;
}

export interface ProcessSeen {
  processId: string;
  at: number;
  stale: boolean;
}

const CIRCUIT_RANK: Record<CircuitState, number> = { closed: 0, half_open: 1, open: 2 };

function worst(a: CircuitState | null, b: CircuitState): CircuitState {
  return a === null || CIRCUIT_RANK[b] > CIRCUIT_RANK[a] ? b : a;
}

function highest(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return Math.max(a, b);
}

function empty(name: string): UpstreamHealth {
  return { name, state: "no_data", reportedAt: null, processes: [], circuit: null, attempts: 0, failures: {}, p50Ms: null, p99Ms: null, ttfbP50Ms: null };
}

/**
 * Sums the processes' reports per upstream, for the upstreams `names` lists (the caller's view:
 * an upstream outside it is never shown, one without any report is `no_data`). A report older
 * than the stale bound only marks its upstreams `stale` when no fresh report names them.
 */
export function aggregateUpstreamHealth(reports: readonly ProcessReport[], names: readonly string[], now: number): { upstreams: UpstreamHealth[]; processes: ProcessSeen[] } {
  const byName = new Map(names.map((name) => [name, empty(name)]));
  const processes: ProcessSeen[] = [];
  for (const report of reports) {
    const stale = now - report.at > UPSTREAM_HEALTH_STALE_MS;
    processes.push({ processId: report.processId, at: report.at, stale });
    for (const [name, figures] of Object.entries(report.upstreams)) {
      const health = byName.get(name);
      if (!health) continue;
      health.reportedAt = Math.max(health.reportedAt ?? 0, report.at);
      if (stale) {
        if (health.state === "no_data") health.state = "stale";
        continue;
      }
      health.state = "reporting";
      health.processes.push(report.processId);
      health.circuit = worst(health.circuit, figures.circuit);
      health.attempts += figures.attempts;
      for (const [cause, failures] of Object.entries(figures.failures)) health.failures[cause] = (health.failures[cause] ?? 0) + failures;
      health.p50Ms = highest(health.p50Ms, figures.p50Ms);
      health.p99Ms = highest(health.p99Ms, figures.p99Ms);
      health.ttfbP50Ms = highest(health.ttfbP50Ms, figures.ttfbP50Ms);
    }
  }
  return { upstreams: [...byName.values()], processes };
}
