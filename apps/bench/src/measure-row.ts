import { cpuPercent, cpuPerRequestUs, readCpuTicks, readSchedstat, sampleRss, waitPercent } from "./process-stats.ts";
import type { ProxyCounters, RowResult, RunFigures } from "./results.ts";
import { requestTarget, terminalMarker, type Endpoints, type RequestTarget } from "./request-target.ts";
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
  /** Skip the direct side (profiling runs only need the proxy under load). */
  proxyOnly: boolean;
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

/** The proxy side: the same load, with the proxy's CPU ticks read around it and its RSS sampled through it. */
async function measureProxy(scenario: Scenario, target: RequestTarget, settings: RowSettings): Promise<RunFigures & ProxyCounters> {
  const rss = sampleRss(settings.proxyPid);
  const before = await readCpuTicks(settings.proxyPid);
  const schedBefore = await readSchedstat(settings.proxyPid);
  const startedAt = performance.now();
  const figures = await measured(scenario, target, settings);
  const after = await readCpuTicks(settings.proxyPid);
  const schedAfter = await readSchedstat(settings.proxyPid);
  const elapsedMs = performance.now() - startedAt;
  return {
    ...figures,
    cpuUsPerRequest: cpuPerRequestUs(before, after, settings.ticksPerSecond, figures.completed + figures.errors),
    cpuPercent: cpuPercent(before, after, settings.ticksPerSecond, elapsedMs),
    peakRssBytes: await rss.stop(),
    waitPercent: waitPercent(schedBefore, schedAfter, elapsedMs),
  };
}

/** Direct first, then through the proxy; each side warmed up on its own connections first. */
export async function measureRow(scenario: Scenario, settings: RowSettings): Promise<RowResult> {
  const direct = requestTarget(settings.endpoints, scenario.shape, false);
  const viaProxy = requestTarget(settings.endpoints, scenario.shape, true);
  let directFigures: RunFigures | null = null;
  if (!settings.proxyOnly) {
    if (settings.warmupS > 0) await load(scenario, direct, settings.warmupS);
    directFigures = await measured(scenario, direct, settings);
  }
  if (settings.warmupS > 0) await load(scenario, viaProxy, settings.warmupS);
  const proxyFigures = await measureProxy(scenario, viaProxy, settings);
  return { id: scenario.id, label: scenario.label, kind: scenario.kind, concurrency: scenario.concurrency, direct: directFigures, proxy: proxyFigures };
}
