import { cpuPercent, cpuPerRequestUs, readTreeCpuTicks, readSchedstat, sampleRss, waitPercent } from "./process-stats.ts";
import type { ProxyCounters, RowResult, RunFigures } from "./results.ts";
import { floorTarget, portkeyTarget, requestTarget, terminalMarker, type Endpoints, type RequestTarget } from "./request-target.ts";
import { systemFigures, type SystemMeter } from "./system-cost.ts";
import type { Scenario } from "./scenarios.ts";
import { runJsonLoad } from "./json-load.ts";
import { runLeanLoad } from "./lean-load.ts";
import { runStreamLoad } from "./stream-load.ts";

export interface RowSettings {
  endpoints: Endpoints;
  durationS: number;
  warmupS: number;
  proxyPid: number;
  simulatorPid: number | null;
  ticksPerSecond: number;
  /** Skip the direct and floor sides (profiling runs only need the proxy under load). */
  proxyOnly: boolean;
  /** The floor (floor-proxy.ts on the proxy's core) and its pid; null = no floor side. */
  floor: { url: string; pid: number } | null;
  /** Portkey's gateway (on the proxy's core) and its pid; null = no Portkey side. */
  portkey: { url: string; pid: number } | null;
  /** The billing worker, Redis and Postgres, read around the proxied run; null = not measured. */
  system: SystemMeter | null;
  /**
   * Runs of the floor and of the proxy, alternating, on the rows the targets read (BENCH_TARGET_RUNS):
   * each side's run of median target figure is the one reported (`targetFigure`).
   */
  targetRuns: number;
  /**
   * The billing worker held still while the proxy is measured (every proxied run), and let drain
   * the queue (the ledger caught up) before the next run (BENCH_BILLING_APART); null = it runs
   * through every run.
   */
  billingWorker: { pause(): void; resume(): void } | null;
}

/** The concurrency of the rows whose CPU the targets read. */
export const CPU_TARGET_CONCURRENCY = 64;
/** The concurrency of the rows whose latency the targets read. */
export const LATENCY_TARGET_CONCURRENCY = 1;

/** The figure of a run that a row's targets read, by which the median run is chosen. */
export interface TargetFigure {
  name: "CPU µs/req" | "p99 ms";
  of(run: RunFigures & ProxyCounters): number;
}

const CPU_FIGURE: TargetFigure = { name: "CPU µs/req", of: (run) => run.cpuUsPerRequest };
/** The added p99 the latency targets read: of the first byte for streams, of the whole response otherwise. */
const P99_FIGURE: TargetFigure = { name: "p99 ms", of: (run) => (run.firstByte ?? run.latency).p99 };

/** What a row's runs are chosen by: null = a row no target reads, measured once. */
export function targetFigure(scenario: Pick<Scenario, "concurrency">): TargetFigure | null {
  if (scenario.concurrency === CPU_TARGET_CONCURRENCY) return CPU_FIGURE;
  if (scenario.concurrency === LATENCY_TARGET_CONCURRENCY) return P99_FIGURE;
  return null;
}

/** The run of median `figure` (the lower middle one of an even count). */
export function medianRun<Run>(runs: readonly Run[], figure: (run: Run) => number): Run {
  const sorted = [...runs].sort((a, b) => figure(a) - figure(b));
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

/** A scenario's load for `seconds` (its warm-up too). */
export function load(scenario: Scenario, target: RequestTarget, seconds: number): Promise<RunFigures> {
  if (scenario.load === "lean") return runLeanLoad(target, scenario.concurrency, seconds);
  return scenario.kind === "json"
    ? runJsonLoad(target, scenario.concurrency, seconds)
    : runStreamLoad(target, terminalMarker(scenario.shape.api), scenario.concurrency, seconds);
}

/** A measured run, with how long the driver and the simulator waited for their (shared) core meanwhile. */
async function measured(scenario: Scenario, target: RequestTarget, settings: RowSettings): Promise<RunFigures> {
  const simulatorPid = settings.simulatorPid;
  const driverBefore = await readSchedstat("self");
  const simulatorBefore = simulatorPid ? await readSchedstat(simulatorPid) : null;
  const startedAt = performance.now();
  const figures = await load(scenario, target, settings.durationS);
  const elapsedMs = performance.now() - startedAt;
  const driver = waitPercent(driverBefore, await readSchedstat("self"), elapsedMs);
  const simulator = simulatorPid && simulatorBefore ? waitPercent(simulatorBefore, await readSchedstat(simulatorPid), elapsedMs) : Number.NaN;
  return { ...figures, wait: { driver, simulator } };
}

/**
 * A server-side run (the proxy, or the floor): the same load, with the server's CPU ticks read
 * around it and its RSS sampled through it.
 */
export async function measureServer(scenario: Scenario, target: RequestTarget, settings: RowSettings, pid: number): Promise<RunFigures & ProxyCounters> {
  const rss = sampleRss(pid);
  const before = await readTreeCpuTicks(pid);
  const schedBefore = await readSchedstat(pid);
  const startedAt = performance.now();
  const figures = await measured(scenario, target, settings);
  const after = await readTreeCpuTicks(pid);
  const schedAfter = await readSchedstat(pid);
  const elapsedMs = performance.now() - startedAt;
  return {
    ...figures,
    cpuUsPerRequest: cpuPerRequestUs(before, after, settings.ticksPerSecond, figures.completed + figures.errors),
    cpuPercent: cpuPercent(before, after, settings.ticksPerSecond, elapsedMs),
    peakRssBytes: await rss.stop(),
    waitPercent: waitPercent(schedBefore, schedAfter, elapsedMs),
  };
}

/**
 * `measure` with the billing worker held still, then let go and the ledger caught up (`settle`)
 * before anything else is measured; the worker is let go even when `measure` fails.
 */
export async function withBillingApart<T>(worker: { pause(): void; resume(): void }, settle: () => Promise<void>, measure: () => Promise<T>): Promise<T> {
  worker.pause();
  try {
    return await measure();
  } finally {
    worker.resume();
    await settle();
  }
}

/**
 * One proxied run: with the billing worker (and so Postgres) held still while it lasts, then let go
 * and the ledger caught up, when the settings hold it apart (BENCH_BILLING_APART, every proxied
 * run). On two cores the worker can only share the load core with the load generator and the
 * simulator (in production it runs on other machines), and the floor's and Portkey's runs have no
 * billing behind them: at concurrency 1 its bursts were read as the proxy's latency; at 64 it took
 * the load side's capacity, so the proxy waited for requests a third of the time and its CPU per
 * request was read at a lower load than the floor's; at 256 the proxy's added p50 read above
 * Portkey's. Its CPU is counted all the same (the system figures are read once the ledger holds
 * every request).
 */
export function proxiedRun<T>(settings: Pick<RowSettings, "billingWorker" | "system">, measure: () => Promise<T>): Promise<T> {
  const { billingWorker, system } = settings;
  return holdsBillingApart(settings) ? withBillingApart(billingWorker!, () => system!.settle(), measure) : measure();
}

/** Whether `proxiedRun` holds the worker apart: there is one to hold, and the system is measured. */
export function holdsBillingApart(settings: Pick<RowSettings, "billingWorker" | "system">): boolean {
  return settings.billingWorker !== null && settings.system !== null;
}

/** Direct, then through the floor, then through the proxy; each side warmed up on its own connections first. */
export async function measureRow(scenario: Scenario, settings: RowSettings): Promise<RowResult> {
  const direct = requestTarget(settings.endpoints, scenario.shape, false);
  const viaProxy = requestTarget(settings.endpoints, scenario.shape, true);
  const warmUp = async (target: RequestTarget) => {
    if (settings.warmupS > 0) await load(scenario, target, settings.warmupS);
  };
  const viaFloor = settings.floor && !settings.proxyOnly ? floorTarget(settings.endpoints, scenario.shape, settings.floor.url) : null;
  let directFigures: RunFigures | null = null;
  let portkeyFigures: (RunFigures & ProxyCounters) | null = null;
  if (!settings.proxyOnly) {
    await warmUp(direct);
    directFigures = await measured(scenario, direct, settings);
    if (settings.portkey) {
      const viaPortkey = portkeyTarget(settings.endpoints, scenario.shape, settings.portkey.url);
      await warmUp(viaPortkey);
      portkeyFigures = await measureServer(scenario, viaPortkey, settings, settings.portkey.pid);
    }
  }
  if (viaFloor) await warmUp(viaFloor);
  await warmUp(viaProxy);
  // The warm-up's billing drained first, so the worker's, Redis's and Postgres's CPU read after the
  // runs (once the ledger caught up again) is what these runs' requests cost them.
  const before = await settings.system?.snapshot();
  // On the targets' rows the floor and the proxy take turns, so a drift of the machine over the
  // row reaches both sides alike; each side's run of median target figure is kept.
  const figure = targetFigure(scenario);
  const runs = figure ? Math.max(1, settings.targetRuns) : 1;
  const billingApart = holdsBillingApart(settings);
  const proxyRun = () => proxiedRun(settings, () => measureServer(scenario, viaProxy, settings, settings.proxyPid));
  const floorRuns: Array<RunFigures & ProxyCounters> = [];
  const proxyRuns: Array<RunFigures & ProxyCounters> = [];
  for (let run = 0; run < runs; run += 1) {
    if (viaFloor) floorRuns.push(await measureServer(scenario, viaFloor, settings, settings.floor!.pid));
    proxyRuns.push(await proxyRun());
  }
  const after = await settings.system?.snapshot();
  const median = (sideRuns: Array<RunFigures & ProxyCounters>) => (figure ? medianRun(sideRuns, figure.of) : sideRuns[0]!);
  const proxyFigures = median(proxyRuns);
  const proxied = proxyRuns.reduce((total, run) => total + run.completed + run.errors, 0);
  const system = before && after ? systemFigures(before, after, proxied, proxyFigures.cpuUsPerRequest) : null;
  return {
    id: scenario.id,
    label: scenario.label,
    kind: scenario.kind,
    concurrency: scenario.concurrency,
    direct: directFigures,
    floor: floorRuns.length > 0 ? median(floorRuns) : null,
    portkey: portkeyFigures,
    proxy: proxyFigures,
    system,
    ...(figure && runs > 1 ? { runs: { figure: figure.name, floor: floorRuns.map(figure.of), proxy: proxyRuns.map(figure.of) } } : {}),
    ...(billingApart ? { billingApart: true } : {}),
  };
}
