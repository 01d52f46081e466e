import { cpuPercent, cpuPerRequestUs, readTreeCpuTicks, readSchedstat, sampleRss, waitPercent } from "./process-stats.ts";
import type { ProxyCounters, RowResult, RunFigures } from "./results.ts";
import { floorTarget, portkeyTarget, requestTarget, terminalMarker, type Endpoints, type RequestTarget } from "./request-target.ts";
import { systemFigures, type SystemMeter } from "./system-cost.ts";
import type { Scenario } from "./scenarios.ts";
import { runJsonLoad } from "./json-load.ts";
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
   * Runs of the floor and of the proxy, alternating, on the concurrency-64 rows (the CPU targets'):
   * each side's run of median CPU per request is the one reported (BENCH_CPU_RUNS).
   */
  cpuRuns: number;
}

/** The concurrency of the rows whose CPU is measured in `cpuRuns` alternating runs. */
export const CPU_TARGET_CONCURRENCY = 64;

/** The run of median CPU per request (the lower middle one of an even count). */
export function medianCpuRun<Run extends ProxyCounters>(runs: readonly Run[]): Run {
  const sorted = [...runs].sort((a, b) => a.cpuUsPerRequest - b.cpuUsPerRequest);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

function load(scenario: Scenario, target: RequestTarget, seconds: number): Promise<RunFigures> {
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
  // On the CPU targets' rows the floor and the proxy take turns, so a drift of the machine over
  // the row reaches both sides alike; each side's run of median CPU is kept.
  const runs = scenario.concurrency === CPU_TARGET_CONCURRENCY ? Math.max(1, settings.cpuRuns) : 1;
  const floorRuns: Array<RunFigures & ProxyCounters> = [];
  const proxyRuns: Array<RunFigures & ProxyCounters> = [];
  for (let run = 0; run < runs; run += 1) {
    if (viaFloor) floorRuns.push(await measureServer(scenario, viaFloor, settings, settings.floor!.pid));
    proxyRuns.push(await measureServer(scenario, viaProxy, settings, settings.proxyPid));
  }
  const after = await settings.system?.snapshot();
  const proxyFigures = medianCpuRun(proxyRuns);
  const proxied = proxyRuns.reduce((total, run) => total + run.completed + run.errors, 0);
  const system = before && after ? systemFigures(before, after, proxied, proxyFigures.cpuUsPerRequest) : null;
  return {
    id: scenario.id,
    label: scenario.label,
    kind: scenario.kind,
    concurrency: scenario.concurrency,
    direct: directFigures,
    floor: floorRuns.length > 0 ? medianCpuRun(floorRuns) : null,
    portkey: portkeyFigures,
    proxy: proxyFigures,
    system,
    ...(runs > 1 ? { cpuRuns: { floor: floorRuns.map((run) => run.cpuUsPerRequest), proxy: proxyRuns.map((run) => run.cpuUsPerRequest) } } : {}),
  };
}
