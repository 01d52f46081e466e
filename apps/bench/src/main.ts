// The benchmark driver (started by scripts/bench.sh, pinned to the load core): measures every row
// straight to the simulator, through the floor (a bare pass-through, when started) and through the
// proxy, then prints the table and writes the figures.
import { loadOrExit } from "@gateway/config";
import { billingQueueCleaner } from "./billing-queue.ts";
import { loadBenchConfig } from "./config.ts";
import { loadAverage, machineInfo } from "./machine-info.ts";
import { measureRow, type RowSettings } from "./measure-row.ts";
import { runOpenStreams } from "./open-streams.ts";
import { formatReport, writeResults } from "./report.ts";
import { floorTarget, requestTarget, terminalMarker, type Endpoints } from "./request-target.ts";
import { addedMs, floorCpuRatio, type BenchResults } from "./results.ts";
import { allScenarios, includesOpenStreams, OPEN_STREAM_DIRECTIVES, selectScenarios } from "./scenarios.ts";
import { formatAdded, formatMs, formatRate, formatRatio } from "./table.ts";

const config = loadOrExit(() => loadBenchConfig());
const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

const endpoints: Endpoints = {
  simulatorUrl: config.BENCH_SIMULATOR_URL.replace(/\/+$/, ""),
  simulatorKey: config.SIMULATOR_API_KEY,
  proxyUrl: config.BENCH_PROXY_URL.replace(/\/+$/, ""),
  proxyKey: config.BENCH_API_KEY,
};
const settings: RowSettings = {
  endpoints,
  durationS: config.BENCH_DURATION_S,
  warmupS: config.BENCH_WARMUP_S,
  proxyPid: config.BENCH_PROXY_PID,
  simulatorPid: config.BENCH_SIMULATOR_PID ?? null,
  ticksPerSecond: config.BENCH_CLK_TCK,
  proxyOnly: config.BENCH_PROXY_ONLY,
  floor: config.BENCH_FLOOR_URL && config.BENCH_FLOOR_PID ? { url: config.BENCH_FLOOR_URL.replace(/\/+$/, ""), pid: config.BENCH_FLOOR_PID } : null,
};
if (!settings.floor) log("no floor (BENCH_FLOOR_URL/BENCH_FLOOR_PID unset): proxy CPU and RSS are not compared with a bare pass-through");
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
  },
  rows: [],
  openStreams: null,
  floorOpenStreams: null,
};
const queue = billingQueueCleaner(config.REDIS_URL, config.REDIS_PREFIX);

try {
  for (const scenario of selectScenarios(allScenarios(), config.BENCH_ROWS)) {
    const row = await measureRow(scenario, settings);
    results.rows.push(row);
    const pick = (side: "latency" | "firstByte") => addedMs(row.direct?.[side], row.proxy[side], "p50");
    log(
      `${scenario.id}: ${formatRate(row.direct?.requestsPerSecond ?? Number.NaN)} -> ${formatRate(row.proxy.requestsPerSecond)} req/s, ` +
        `proxy p50 ${formatMs(row.proxy.latency.p50)} ms (added ${formatAdded(pick("latency"))}` +
        `${row.kind === "stream" ? `, first byte ${formatAdded(pick("firstByte"))}` : ""}), ` +
        `CPU ${row.proxy.cpuUsPerRequest.toFixed(0)} µs/req` +
        `${row.floor ? ` (floor ${row.floor.cpuUsPerRequest.toFixed(0)}, x${formatRatio(floorCpuRatio(row))})` : ""}, ` +
        `errors ${row.direct?.errors ?? "-"}/${row.floor?.errors ?? "-"}/${row.proxy.errors}`,
    );
    await queue.clear();
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
    await queue.clear();
  }
} finally {
  queue.close();
}
results.machine.loadAfter = loadAverage();

const markdown = await writeResults(config.BENCH_OUT, results);
process.stdout.write(`\n${formatReport(results)}\n\nRaw figures: ${config.BENCH_OUT} (table: ${markdown})\n`);
