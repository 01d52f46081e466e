import { mergeUpstreamHealth, UPSTREAM_HEALTH_MAX_AGE_MS, type CircuitStateName, type ProcessUpstreamHealth } from "@gateway/redis-store";

/** One upstream over every proxy process that reported it within the stale bound. */
export interface UpstreamHealthView {
  name: string;
  /** `reporting`: fresh figures; `stale`: only reports older than the bound; `no_data`: no process named it. */
  state: "reporting" | "stale" | "no_data";
  /** The newest report naming this upstream (a stale one too), epoch ms; null when none. */
  reportedAt: number | null;
  /** The fresh processes whose figures are summed here. */
  processes: string[];
  /** The worst state of any process's breaker: one open circuit is an open upstream for its traffic. */
  circuit: CircuitStateName | null;
  /** Attempts in the last minute, summed over the processes. */
  attempts: number;
  /** Failed attempts per cause, summed. */
  failures: Record<string, number>;
  /** Medians weighted by each process's attempts, the highest p99 (redis-store's `mergeUpstreamHealth`). */
  p50Ms: number | null;
  p99Ms: number | null;
  ttfbP50Ms: number | null;
}

export interface ProcessSeen {
  processId: string;
  at: number;
  stale: boolean;
}

/**
 * The processes' snapshots (fresh and stale) as one view per upstream that `names` lists (the
 * caller's: an upstream outside it is never shown, one without any report is `no_data`). Only
 * fresh snapshots are merged; a stale one only marks the upstreams no fresh one names `stale`.
 */
export function aggregateUpstreamHealth(snapshots: readonly ProcessUpstreamHealth[], names: readonly string[], now: number): { upstreams: UpstreamHealthView[]; processes: ProcessSeen[] } {
  const processes = snapshots.map(({ processId, snapshot }) => ({ processId, at: snapshot.at, stale: now - snapshot.at > UPSTREAM_HEALTH_MAX_AGE_MS }));
  const fresh = snapshots.filter((_, index) => !processes[index]!.stale);
  const merged = mergeUpstreamHealth(fresh);
  const upstreams = names.map((name): UpstreamHealthView => {
    const naming = snapshots.filter(({ snapshot }) => name in snapshot.upstreams);
    const reportedAt = naming.length === 0 ? null : Math.max(...naming.map(({ snapshot }) => snapshot.at));
    const figures = merged[name];
    if (!figures) {
      return { name, state: reportedAt === null ? "no_data" : "stale", reportedAt, processes: [], circuit: null, attempts: 0, failures: {}, p50Ms: null, p99Ms: null, ttfbP50Ms: null };
    }
    return {
      name,
      state: "reporting",
      reportedAt,
      processes: fresh.filter(({ snapshot }) => name in snapshot.upstreams).map(({ processId }) => processId),
      circuit: figures.circuit,
      attempts: figures.attempts,
      failures: { ...figures.failures },
      p50Ms: figures.p50Ms,
      p99Ms: figures.p99Ms,
      ttfbP50Ms: figures.ttfbP50Ms,
    };
  });
  return { upstreams, processes };
}
