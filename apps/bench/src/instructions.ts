// `BENCH_INSTRUCTIONS=1 pnpm bench`: the proxy's and the floor's CPU work per request counted in
// machine instructions under valgrind's callgrind, instead of timed. scripts/bench.sh starts the
// same stack (the production path: a key with limits, the billing worker, Redis, Postgres) with the
// proxy and the floor under `valgrind --tool=callgrind --instr-atstart=no`, then runs this driver.
// Per row and side: warm-up requests with counting off (V8 compiles the hot paths), then counting
// on, its counters zeroed, a fixed number of requests, and the instructions read
// (`callgrind_control -e Ir`) and divided by them. With V8's collector on a fixed schedule
// (--predictable-gc-schedule, both sides) and every row sent once before any is counted, two
// back-to-back runs of one build on a quiet machine agree within about 3-4 % (without them, 8-20 %;
// other work on the machine moves them too, the timers firing at another rate per request: up to
// 27 % seen), where timed CPU on a shared VM moves 30-60 % within a row. The figures
// depend on the procedure (a process's history sizes its heap): compare builds, not runs made
// with other settings. They are not time: cache misses, the collector's memory traffic and
// the kernel's share (socket writes) are not in them, and timers fire more often per request at
// valgrind's speed (the billing flush, every 25 ms, carries fewer events).
import { execFile } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { promisify } from "node:util";
import { Agent, type Dispatcher } from "undici";
import { z } from "zod";
import { envVars, parseEnv } from "@gateway/config";
import { floorTarget, requestTarget, terminalMarker, type Endpoints, type RequestTarget } from "./request-target.ts";
import { allScenarios, selectScenarios, type Scenario } from "./scenarios.ts";
import { loadBenchConfig } from "./config.ts";

const run = promisify(execFile);

/** The rows the CPU targets read at concurrency 64, unless BENCH_ROWS names others. */
export const DEFAULT_INSTRUCTION_ROWS = "chat-c64,messages-c64,stream20-chat-c64,stream20-messages-c64";

/** The bench's own settings (the stack's addresses, pids and key, BENCH_ROWS) and the counter's. */
export function loadInstructionConfig(env: Record<string, string | undefined> = process.env) {
  return {
    ...loadBenchConfig(env),
    ...parseEnv("bench instructions", {
      /** Requests counted per row and side, and requests sent before counting starts. */
      BENCH_INSTRUCTION_REQUESTS: envVars.positiveInt(2000),
      BENCH_INSTRUCTION_WARMUP: envVars.positiveInt(3000),
      BENCH_INSTRUCTION_OUT: z.string().min(1).default("bench-results/instructions.json"),
    }, env),
  };
}

/**
 * The instructions of every thread (V8's compiler and collector threads included) from
 * `callgrind_control -e Ir`: a `Totals:` header, then one `Th <n> <count>` line per thread.
 */
export function parseInstructionCount(output: string): number {
  const totals = output.indexOf("Totals:");
  if (totals === -1) throw new Error(`no instruction counts in callgrind_control's answer: ${output.slice(0, 200)}`);
  let sum = 0;
  let threads = 0;
  for (const match of output.slice(totals).matchAll(/^\s*Th\s+\d+\s+([\d,]+)\s*$/gm)) {
    sum += Number(match[1]!.replaceAll(",", ""));
    threads += 1;
  }
  if (threads === 0) throw new Error(`no thread counts in callgrind_control's answer: ${output.slice(0, 200)}`);
  return sum;
}

async function callgrind(pid: number, ...args: string[]): Promise<string> {
  const { stdout } = await run("callgrind_control", [...args, String(pid)]);
  return stdout;
}

/** Requests sent again because a kept-alive connection was closed under them (see `oneRequest`). */
export let resentRequests = 0;

/** A kept-alive connection closed by the server as the request went out: nothing was served on it. */
function connectionLost(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "ECONNRESET" || code === "EPIPE" || code === "UND_ERR_SOCKET";
}

/**
 * One request to the end of its body; a stream must end with its API's terminal event. At
 * valgrind's pace a server can close an idle kept-alive connection just as the next request goes
 * out on it (the race every keep-alive client has): that request is sent once more, on another
 * connection, and counted in `resentRequests`; any other failure ends the run.
 */
async function oneRequest(dispatcher: Dispatcher, target: RequestTarget, marker: string | null, attempt = 1): Promise<void> {
  const url = new URL(target.url);
  let response: Dispatcher.ResponseData;
  try {
    response = await dispatcher.request({ origin: url.origin, path: url.pathname, method: "POST", headers: target.headers, body: target.body });
  } catch (error) {
    if (attempt >= 3 || !connectionLost(error)) throw error;
    resentRequests += 1;
    return oneRequest(dispatcher, target, marker, attempt + 1);
  }
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`${target.url}: status ${response.statusCode}: ${text.slice(0, 160)}`);
  if (marker !== null && !text.includes(marker)) throw new Error(`${target.url}: stream ended without "${marker}"`);
}

/** `count` requests, `concurrency` at a time. */
export async function sendRequests(dispatcher: Dispatcher, target: RequestTarget, marker: string | null, count: number, concurrency: number): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < count) {
      next += 1;
      await oneRequest(dispatcher, target, marker);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane));
}

export interface InstructionFigure {
  row: string;
  side: "floor" | "proxy";
  requests: number;
  instructions: number;
  perRequest: number;
}

async function measure(pid: number, dispatcher: Dispatcher, target: RequestTarget, scenario: Scenario, warmup: number, requests: number): Promise<Omit<InstructionFigure, "row" | "side">> {
  const marker = scenario.shape.stream ? terminalMarker(scenario.shape.api) : null;
  await sendRequests(dispatcher, target, marker, warmup, scenario.concurrency);
  await callgrind(pid, "--instr=on");
  await callgrind(pid, "--zero");
  await sendRequests(dispatcher, target, marker, requests, scenario.concurrency);
  const instructions = parseInstructionCount(await callgrind(pid, "-e", "Ir"));
  await callgrind(pid, "--instr=off");
  return { requests, instructions, perRequest: Math.round(instructions / requests) };
}

async function main(): Promise<void> {
  const config = loadInstructionConfig();
  const endpoints: Endpoints = { simulatorUrl: config.BENCH_SIMULATOR_URL, simulatorKey: config.SIMULATOR_API_KEY, proxyUrl: config.BENCH_PROXY_URL, proxyKey: config.BENCH_API_KEY };
  const scenarios = selectScenarios(allScenarios(), config.BENCH_ROWS || DEFAULT_INSTRUCTION_ROWS);
  const dispatcher = new Agent({ connections: 256, keepAliveTimeout: 60_000 });
  const figures: InstructionFigure[] = [];
  const sidesOf = (scenario: Scenario) => {
    const sides: { side: InstructionFigure["side"]; pid: number; target: RequestTarget }[] = [];
    if (config.BENCH_FLOOR_URL && config.BENCH_FLOOR_PID) sides.push({ side: "floor", pid: config.BENCH_FLOOR_PID, target: floorTarget(endpoints, scenario.shape, config.BENCH_FLOOR_URL) });
    sides.push({ side: "proxy", pid: config.BENCH_PROXY_PID, target: requestTarget(endpoints, scenario.shape, true) });
    return sides;
  };
  try {
    // Every row once before any is counted: a process's first traffic also grows its heap and
    // compiles code shared by all rows, and counted in the first row it moved that row's figure by
    // up to 20 % from run to run (later rows: within 1 %).
    for (const scenario of scenarios) {
      for (const { target } of sidesOf(scenario)) {
        await sendRequests(dispatcher, target, scenario.shape.stream ? terminalMarker(scenario.shape.api) : null, config.BENCH_INSTRUCTION_WARMUP, scenario.concurrency);
      }
    }
    for (const scenario of scenarios) {
      for (const { side, pid, target } of sidesOf(scenario)) {
        const figure = { row: scenario.id, side, ...(await measure(pid, dispatcher, target, scenario, config.BENCH_INSTRUCTION_WARMUP, config.BENCH_INSTRUCTION_REQUESTS)) };
        figures.push(figure);
        process.stdout.write(`[instructions] ${scenario.id} ${side}: ${figure.perRequest.toLocaleString("en-US")} instructions per request (${figure.requests} requests)\n`);
      }
    }
  } finally {
    await dispatcher.close();
  }
  process.stdout.write(`\n${instructionTable(figures)}\n`);
  if (resentRequests > 0) process.stdout.write(`${resentRequests} requests sent again after their kept-alive connection closed under them\n`);
  mkdirSync(dirname(config.BENCH_INSTRUCTION_OUT), { recursive: true });
  writeFileSync(config.BENCH_INSTRUCTION_OUT, `${JSON.stringify({ at: new Date().toISOString(), figures }, null, 2)}\n`);
  process.stdout.write(`Raw figures: ${config.BENCH_INSTRUCTION_OUT}\n`);
}

/** The Markdown table: per row, each side's instructions per request and the proxy's over the floor's. */
export function instructionTable(figures: readonly InstructionFigure[]): string {
  const rows = [...new Set(figures.map((figure) => figure.row))];
  const lines = ["| row | floor instructions/request | proxy instructions/request | proxy/floor |", "|---|---:|---:|---:|"];
  for (const row of rows) {
    const floor = figures.find((figure) => figure.row === row && figure.side === "floor");
    const proxy = figures.find((figure) => figure.row === row && figure.side === "proxy");
    const ratio = floor && proxy ? `x${(proxy.perRequest / floor.perRequest).toFixed(2)}` : "–";
    lines.push(`| ${row} | ${floor ? floor.perRequest.toLocaleString("en-US") : "–"} | ${proxy ? proxy.perRequest.toLocaleString("en-US") : "–"} | ${ratio} |`);
  }
  return lines.join("\n");
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
