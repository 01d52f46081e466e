import type { LatencySummary, Samples } from "./percentiles.ts";

/** One side (straight to the simulator, through the floor, or through the proxy) of one row. */
export interface RunFigures {
  /** Requests (or streams) completed with a 2xx and, for streams, their terminal event. */
  completed: number;
  /** Non-2xx answers, transport errors and streams cut before their terminal event. */
  errors: number;
  /** Wall time of the measured window. */
  seconds: number;
  requestsPerSecond: number;
  /** Whole response for JSON; last byte for streams. */
  latency: LatencySummary;
  /** Streams only: time to the first body byte. */
  firstByte: LatencySummary | null;
  /** Run-queue wait of the load side's processes over the run, % of wall time (see `waitPercent`). */
  wait?: LoadSideWait;
}

/**
 * A load run's figures, its window ending now: `latencies` of the completed requests (of the last
 * byte for streams), `firstByte` of streams (null for JSON).
 */
export function runFigures(latencies: Samples, errors: number, startedAt: number, firstByte: Samples | null = null): RunFigures {
  const seconds = (performance.now() - startedAt) / 1000;
  return {
    completed: latencies.length,
    errors,
    seconds,
    requestsPerSecond: latencies.length / seconds,
    latency: latencies.summary(),
    firstByte: firstByte?.summary() ?? null,
  };
}

export interface LoadSideWait {
  driver: number;
  simulator: number;
}

/** The proxy's (or the floor's) own counters over the same window. */
export interface ProxyCounters {
  cpuUsPerRequest: number;
  /** 100 = one core fully busy. */
  cpuPercent: number;
  peakRssBytes: number;
  /** The proxy's main thread: % of wall time runnable but waiting for its core (other work on it). */
  waitPercent: number;
}

export type RowKind = "json" | "stream";

export interface RowResult {
  id: string;
  label: string;
  kind: RowKind;
  concurrency: number;
  direct: RunFigures | null;
  /**
   * The same load as the direct side through the floor (floor-proxy.ts: a bare node:http + undici
   * pass-through on the proxy's core), with the same counters as the proxy; null when not run.
   */
  floor: (RunFigures & ProxyCounters) | null;
  /** The same load through Portkey's gateway (on the proxy's core), with the same counters; null when not run. */
  portkey?: (RunFigures & ProxyCounters) | null;
  proxy: RunFigures & ProxyCounters;
  /** The billing worker, Redis and Postgres during the proxied run, and the ledger's check; null when not measured. */
  system?: SystemFigures | null;
  /**
   * The target figure of each run, in order, when the row took several (`floor` and `proxy` above
   * are the runs of median figure): CPU per request on the concurrency-64 rows, the p99 (first
   * byte for streams) on the concurrency-1 rows.
   */
  runs?: { figure: string; floor: number[]; proxy: number[] };
  /** Set when the billing worker was held still through the proxy's runs and drained the queue between them. */
  billingApart?: boolean;
}

/** What the rest of the production path spent per proxied request, and whether the ledger holds every request. */
export interface SystemFigures {
  workerUsPerRequest: number;
  redisUsPerRequest: number;
  postgresUsPerRequest: number;
  /** Proxy + worker + Redis + Postgres. */
  wholeUsPerRequest: number;
  /** Ledger rows written for the run, and model requests the proxy counted in it: equal, or the bench fails. */
  billed: number;
  proxied: number;
}

/**
 * The whole ledger after the runs against the model requests the proxies served since they
 * started (warm-ups included): usage_records' rows and the requests each per-day table adds up.
 */
export interface LedgerTotals {
  proxied: number;
  records: number;
  keyDays: number;
  aggregates: number;
  vendorDays: number;
}

/** Every count of the ledger equal to the requests the proxies served. */
export function ledgerAgrees(totals: LedgerTotals): boolean {
  const { proxied, records, keyDays, aggregates, vendorDays } = totals;
  return records === proxied && keyDays === proxied && aggregates === proxied && vendorDays === proxied;
}

/** The same row through one proxy process and through several behind one port (node:cluster). */
export interface ScalingResult {
  label: string;
  concurrency: number;
  processes: number;
  /** The lean client straight to the recorded upstream, both on the load core: what the load side alone can send. */
  loadAlone: RunFigures & LoadSideCpu;
  /** PROXY_PROCESSES=1, the proxy of every other row. */
  one: RunFigures & ProxyCounters & LoadSideCpu;
  /** PROXY_PROCESSES=`processes`, unpinned (both cores); CPU summed over primary and workers, RSS of the largest. */
  many: RunFigures & ProxyCounters & LoadSideCpu;
  /** Requests/s of every run of each side (they alternate); `one` and `many` are each side's median run. */
  runs?: { one: number[]; many: number[] };
}

/** The scaling step's load side: the driver (the lean client) and the recorded upstream, CPU µs a request. */
export interface LoadSideCpu {
  loadCpuUsPerRequest: number;
}

export interface OpenStreamsResult {
  streams: number;
  completed: number;
  errors: number;
  /** Most streams open at once (headers in, terminal event not yet). */
  peakOpen: number;
  seconds: number;
  peakRssBytes: number;
  rssBeforeBytes: number;
  cpuPercent: number;
  cpuUsPerStream: number;
  firstError: string | null;
}

export interface MachineInfo {
  nproc: number;
  cpuModel: string;
  node: string;
  kernel: string;
  memoryGiB: number;
  /**
   * /proc/loadavg's 1, 5 and 15-minute figures at the start and the end. The bench itself keeps
   * about two runnable; much more means other work shared the cores and the figures are noisier.
   */
  loadBefore: string;
  loadAfter: string;
}

export interface BenchResults {
  startedAt: string;
  machine: MachineInfo;
  settings: { durationS: number; warmupS: number; proxyCore: string; loadCore: string; simulator: string; proxyNodeFlags: string; portkey?: string; billingApart?: boolean };
  rows: RowResult[];
  openStreams: OpenStreamsResult | null;
  /** The same open streams through the floor (its RSS to compare with the proxy's); absent when not run. */
  floorOpenStreams?: OpenStreamsResult | null;
  scaling?: ScalingResult | null;
  /** The ledger counted in full once the runs are over; absent when the system was not measured. */
  ledger?: LedgerTotals | null;
}

/** Proxy minus direct for one latency figure, in ms (NaN when a side is missing). */
export function addedMs(direct: LatencySummary | null | undefined, proxy: LatencySummary | null | undefined, field: "p50" | "p99" | "p999"): number {
  if (!direct || !proxy) return Number.NaN;
  return proxy[field] - direct[field];
}

/** Proxy throughput over direct throughput (1.0 = the proxy costs no throughput). */
export function throughputRatio(row: RowResult): number {
  if (!row.direct || row.direct.requestsPerSecond === 0) return Number.NaN;
  return row.proxy.requestsPerSecond / row.direct.requestsPerSecond;
}

/** Proxy CPU per request over the floor's on the same row (NaN without a floor). */
export function floorCpuRatio(row: RowResult): number {
  if (!row.floor || !(row.floor.cpuUsPerRequest > 0)) return Number.NaN;
  return row.proxy.cpuUsPerRequest / row.floor.cpuUsPerRequest;
}

/** Proxy CPU per request over Portkey's on the same row (NaN without Portkey). */
export function portkeyCpuRatio(row: RowResult): number {
  if (!row.portkey || !(row.portkey.cpuUsPerRequest > 0)) return Number.NaN;
  return row.proxy.cpuUsPerRequest / row.portkey.cpuUsPerRequest;
}

/** Proxy + worker + Redis + Postgres CPU per request over the floor's on the same row. */
export function systemFloorCpuRatio(row: RowResult): number {
  if (!row.system || !row.floor || !(row.floor.cpuUsPerRequest > 0)) return Number.NaN;
  return row.system.wholeUsPerRequest / row.floor.cpuUsPerRequest;
}
