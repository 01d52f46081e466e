// The benchmark driver (started by scripts/bench.sh, pinned to the load core): measures every row
// straight to the simulator, through the floor (a bare pass-through), through Portkey's gateway
// (when started) and through the proxy on the production path (the billing worker, Redis and
// Postgres measured with it), then the scaling row and the open streams; prints the table and
// writes the figures.
import { loadOrExit } from "@gateway/config";
import { loadBenchConfig } from "./config.ts";
import { loadAverage, machineInfo } from "./machine-info.ts";
import { load, measureRow, measureServer, medianRun, proxiedRun, type RowSettings } from "./measure-row.ts";
import { cpuPerRequestUs, readCpuTicks, readTreeCpuTicks } from "./process-stats.ts";
import { runOpenStreams } from "./open-streams.ts";
import { formatReport, writeResults } from "./report.ts";
import { floorTarget, requestTarget, terminalMarker, type Endpoints, type RequestTarget } from "./request-target.ts";
import { addedMs, floorCpuRatio, type BenchResults, type RunFigures } from "./results.ts";
import { allScenarios, includesOpenStreams, includesStep, OPEN_STREAM_DIRECTIVES, SCALING_ID, SCALING_SCENARIO, selectScenarios } from "./scenarios.ts";
import { systemMeter } from "./system-cost.ts";
import { formatAdded, formatBilled, formatMs, formatRate, formatRatio, formatRunFigure, formatScaling } from "./table.ts";

const config = loadOrExit(() => loadBenchConfig());
const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);
const formatRuns = (figure: string, values: number[]) => values.map((value) => formatRunFigure(figure, value)).join(", ");
/** A process held still and let go by signals (the billing worker, for BENCH_BILLING_APART). */
const signalled = (pid: number) => ({
  pause: () => void process.kill(pid, "SIGSTOP"),
  resume: () => void process.kill(pid, "SIGCONT"),
});
const trim = (url: string) => url.replace(/\/+$/, "");

const endpoints: Endpoints = {
  simulatorUrl: trim(config.BENCH_SIMULATOR_URL),
  simulatorKey: config.SIMULATOR_API_KEY,
  proxyUrl: trim(config.BENCH_PROXY_URL),
  proxyKey: config.BENCH_API_KEY,
};
const scaling =
  config.BENCH_SCALING_PROXY_URL && config.BENCH_SCALING_PROXY_PID && config.BENCH_RECORDED_UPSTREAM_URL && config.BENCH_RECORDED_UPSTREAM_PID
    ? {
        url: trim(config.BENCH_SCALING_PROXY_URL),
        pid: config.BENCH_SCALING_PROXY_PID,
        recorded: { url: trim(config.BENCH_RECORDED_UPSTREAM_URL), pid: config.BENCH_RECORDED_UPSTREAM_PID },
      }
    : null;
const system = systemMeter({
  databaseUrl: config.DATABASE_URL,
  proxyUrls: [endpoints.proxyUrl, ...(scaling ? [scaling.url] : [])],
  ticksPerSecond: config.BENCH_CLK_TCK,
  workerPid: config.BENCH_WORKER_PID,
  redisPid: config.BENCH_REDIS_PID ?? null,
  redisUrl: config.REDIS_URL,
  postgresPid: config.BENCH_POSTGRES_PID ?? null,
  settleTimeoutMs: config.BENCH_SETTLE_TIMEOUT_S * 1000,
});
const settings: RowSettings = {
  endpoints,
  durationS: config.BENCH_DURATION_S,
  warmupS: config.BENCH_WARMUP_S,
  proxyPid: config.BENCH_PROXY_PID,
  simulatorPid: config.BENCH_SIMULATOR_PID ?? null,
  ticksPerSecond: config.BENCH_CLK_TCK,
  proxyOnly: config.BENCH_PROXY_ONLY,
  floor: config.BENCH_FLOOR_URL && config.BENCH_FLOOR_PID ? { url: trim(config.BENCH_FLOOR_URL), pid: config.BENCH_FLOOR_PID } : null,
  portkey: config.BENCH_PORTKEY_URL && config.BENCH_PORTKEY_PID ? { url: trim(config.BENCH_PORTKEY_URL), pid: config.BENCH_PORTKEY_PID } : null,
  system,
  targetRuns: config.BENCH_TARGET_RUNS,
  billingWorker: config.BENCH_BILLING_APART ? signalled(config.BENCH_WORKER_PID) : null,
};
if (!settings.floor) log("no floor (BENCH_FLOOR_URL/BENCH_FLOOR_PID unset): proxy CPU and RSS are not compared with a bare pass-through");
if (!settings.portkey) log("no Portkey side (BENCH_PORTKEY_URL/BENCH_PORTKEY_PID unset)");
const results: BenchResults = {
  startedAt: new Date().toISOString(),
  machine: machineInfo(),
  settings: {
    durationS: config.BENCH_DURATION_S,
    warmupS: config.BENCH_WARMUP_S,
    proxyCore: config.BENCH_PROXY_CORE,
    loadCore: config.BENCH_LOAD_CORE,
    simulator: "no latency, no chunk delay (except the open-streams row)",
    proxyNodeFlags: config.BENCH_PROXY_NODE_FLAGS,
    portkey: settings.portkey ? config.BENCH_PORTKEY_DESCRIPTION || "Portkey's gateway" : "",
    billingApart: settings.billingWorker !== null,
  },
  rows: [],
  openStreams: null,
  floorOpenStreams: null,
  scaling: null,
};

try {
  for (const scenario of selectScenarios(allScenarios(), config.BENCH_ROWS)) {
    const row = await measureRow(scenario, settings);
    results.rows.push(row);
    const pick = (side: "latency" | "firstByte") => addedMs(row.direct?.[side], row.proxy[side], "p50");
    const portkeyAdded = row.portkey ? addedMs(row.direct?.[row.kind === "stream" ? "firstByte" : "latency"], row.portkey[row.kind === "stream" ? "firstByte" : "latency"], "p50") : Number.NaN;
    log(
      `${scenario.id}: ${formatRate(row.direct?.requestsPerSecond ?? Number.NaN)} -> ${formatRate(row.proxy.requestsPerSecond)} req/s, ` +
        `proxy p50 ${formatMs(row.proxy.latency.p50)} ms (added ${formatAdded(pick("latency"))}` +
        `${row.kind === "stream" ? `, first byte ${formatAdded(pick("firstByte"))}` : ""}` +
        `${row.portkey ? `; Portkey's ${formatAdded(portkeyAdded)}` : ""}), ` +
        `CPU ${row.proxy.cpuUsPerRequest.toFixed(0)} µs/req` +
        `${row.floor ? ` (floor ${row.floor.cpuUsPerRequest.toFixed(0)}, x${formatRatio(floorCpuRatio(row))})` : ""}` +
        `${row.runs ? ` (medians of ${row.runs.proxy.length} runs by ${row.runs.figure}: proxy ${formatRuns(row.runs.figure, row.runs.proxy)}${row.runs.floor.length > 0 ? `; floor ${formatRuns(row.runs.figure, row.runs.floor)}` : ""})` : ""}` +
        `${row.billingApart ? " (billing worker apart)" : ""}` +
        `${row.portkey ? ` (Portkey ${row.portkey.cpuUsPerRequest.toFixed(0)})` : ""}` +
        `${row.system ? `, system ${row.system.wholeUsPerRequest.toFixed(0)} µs/req (worker ${row.system.workerUsPerRequest.toFixed(0)}, Redis ${row.system.redisUsPerRequest.toFixed(0)}, Postgres ${row.system.postgresUsPerRequest.toFixed(0)}), billed ${formatBilled(row.system)}` : ""}, ` +
        `errors ${row.direct?.errors ?? "-"}/${row.floor?.errors ?? "-"}/${row.portkey?.errors ?? "-"}/${row.proxy.errors}`,
    );
  }
  if (scaling && includesStep(config.BENCH_ROWS, SCALING_ID)) {
    const scenario = SCALING_SCENARIO;
    const upstream = scaling.recorded;
    // The load side's CPU (this driver, the lean client, and the recorded upstream) a request.
    const loadSide = async <T extends RunFigures>(measure: () => Promise<T>): Promise<T & { loadCpuUsPerRequest: number }> => {
      const before = [await readCpuTicks(process.pid), await readTreeCpuTicks(upstream.pid)] as const;
      const figures = await measure();
      const after = [await readCpuTicks(process.pid), await readTreeCpuTicks(upstream.pid)] as const;
      const requests = figures.completed + figures.errors;
      const loadCpuUsPerRequest = cpuPerRequestUs(before[0], after[0], config.BENCH_CLK_TCK, requests) + cpuPerRequestUs(before[1], after[1], config.BENCH_CLK_TCK, requests);
      return { ...figures, loadCpuUsPerRequest };
    };
    const run = async (target: RequestTarget, pid: number) => {
      if (config.BENCH_WARMUP_S > 0) await load(scenario, target, config.BENCH_WARMUP_S);
      const figures = await proxiedRun(settings, () => loadSide(() => measureServer(scenario, target, settings, pid)));
      await system.snapshot(); // the ledger caught up before the next run
      return figures;
    };
    log(`scaling: ${scenario.label} at concurrency ${scenario.concurrency}, the load side alone, then PROXY_PROCESSES=1 and ${config.BENCH_SCALING_PROCESSES}`);
    const straight: RequestTarget = { ...requestTarget(endpoints, scenario.shape, false), url: `${upstream.url}/v1/chat/completions` };
    if (config.BENCH_WARMUP_S > 0) await load(scenario, straight, config.BENCH_WARMUP_S);
    const alone = await loadSide(() => load(scenario, straight, config.BENCH_DURATION_S));
    // The two proxies take turns (BENCH_TARGET_RUNS each, as on the targets' rows); each one's run of
    // median throughput is reported: on two cores the second process's share of the load core moves
    // from run to run.
    const viaOne = requestTarget(endpoints, scenario.shape, true);
    const viaMany = requestTarget({ ...endpoints, proxyUrl: scaling.url }, scenario.shape, true);
    const oneRuns: Array<Awaited<ReturnType<typeof run>>> = [];
    const manyRuns: typeof oneRuns = [];
    for (let index = 0; index < Math.max(1, config.BENCH_TARGET_RUNS); index += 1) {
      oneRuns.push(await run(viaOne, config.BENCH_PROXY_PID));
      manyRuns.push(await run(viaMany, scaling.pid));
    }
    const byThroughput = (figures: RunFigures) => figures.requestsPerSecond;
    const one = medianRun(oneRuns, byThroughput);
    const many = medianRun(manyRuns, byThroughput);
    log(`scaling runs, req/s: 1 process ${oneRuns.map((figures) => formatRate(figures.requestsPerSecond)).join(", ")}; ${config.BENCH_SCALING_PROCESSES} processes ${manyRuns.map((figures) => formatRate(figures.requestsPerSecond)).join(", ")}`);
    results.scaling = { label: scenario.label, concurrency: scenario.concurrency, processes: config.BENCH_SCALING_PROCESSES, loadAlone: alone, one, many, runs: { one: oneRuns.map(byThroughput), many: manyRuns.map(byThroughput) } };
    log(formatScaling(results.scaling));
  }
  if (includesOpenStreams(config.BENCH_ROWS)) {
    const shape = { api: "chat", stream: true, directives: OPEN_STREAM_DIRECTIVES } as const;
    if (settings.floor && !settings.proxyOnly) {
      log(`opening ${config.BENCH_OPEN_STREAMS} slow streams through the floor`);
      const target = floorTarget(endpoints, shape, settings.floor.url);
      results.floorOpenStreams = await runOpenStreams(target, terminalMarker("chat"), config.BENCH_OPEN_STREAMS, settings.floor.pid, config.BENCH_CLK_TCK);
    }
    const target = requestTarget(endpoints, shape, true);
    log(`opening ${config.BENCH_OPEN_STREAMS} slow streams through the proxy`);
    results.openStreams = await runOpenStreams(target, terminalMarker("chat"), config.BENCH_OPEN_STREAMS, config.BENCH_PROXY_PID, config.BENCH_CLK_TCK);
    await system.snapshot();
  }
  results.ledger = await system.ledgerTotals();
} finally {
  await system.close();
}
results.machine.loadAfter = loadAverage();

const markdown = await writeResults(config.BENCH_OUT, results);
process.stdout.write(`\n${formatReport(results)}\n\nRaw figures: ${config.BENCH_OUT} (table: ${markdown})\n`);
