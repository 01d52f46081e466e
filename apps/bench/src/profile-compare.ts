// node profile-compare.ts FLOOR_PROFILE PROXY_PROFILE RESULTS_JSON: the floor's and the proxy's CPU
// per request by kind of work (`workKinds`), from `BENCH_PROFILE=1` runs of one row. Each kind's
// share of a process's busy profile time is applied to that process's CPU per request on the row
// (bench-results/latest.json), so the figures read in µs per request like the bench's own.
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { originalPositionFor, TraceMap } from "@jridgewell/trace-mapping";
import { latestProfile, readProfile, WORK_KINDS, workKinds, type CallFrame } from "./profile-summary.ts";

/** A frame's source file: a bundle's frames (a script with a `.map` beside it) mapped back to theirs. */
function sourceResolver(): (callFrame: CallFrame) => string {
  const maps = new Map<string, TraceMap | null>();
  return (callFrame) => {
    const { url } = callFrame;
    if (!url.startsWith("file://")) return url;
    let map = maps.get(url);
    if (map === undefined) {
      const mapFile = `${fileURLToPath(url)}.map`;
      map = existsSync(mapFile) ? new TraceMap(readFileSync(mapFile, "utf8"), url) : null;
      maps.set(url, map);
    }
    if (map === null) return url;
    return originalPositionFor(map, { line: callFrame.lineNumber + 1, column: callFrame.columnNumber ?? 0 }).source ?? url;
  };
}

const [floorTarget, proxyTarget, resultsFile] = process.argv.slice(2);
if (!floorTarget || !proxyTarget || !resultsFile) {
  process.stderr.write("usage: profile-compare.ts FLOOR_PROFILE PROXY_PROFILE RESULTS_JSON\n");
  process.exit(2);
}
const results = JSON.parse(readFileSync(resultsFile, "utf8")) as { rows: Array<{ id: string; floor: { cpuUsPerRequest?: number } | null; proxy: { cpuUsPerRequest?: number } }> };
const row = results.rows[0];
const floorUs = row?.floor?.cpuUsPerRequest;
const proxyUs = row?.proxy.cpuUsPerRequest;
if (!row || floorUs === undefined || proxyUs === undefined) {
  process.stdout.write(`${resultsFile}: its first row has no floor and proxy CPU per request to compare (run one row with the floor side)\n`);
  process.exit(0);
}
const resolve = sourceResolver();
const floor = workKinds(await readProfile(await latestProfile(floorTarget)), resolve);
const proxy = workKinds(await readProfile(await latestProfile(proxyTarget)), resolve);
const lines = [
  `CPU per request by kind of work, ${row.id} (each process's profile shares times its CPU per request on the row)`,
  "",
  "| kind of work | floor µs/request | proxy µs/request | difference |",
  "|---|---:|---:|---:|",
];
for (const kind of WORK_KINDS) {
  const a = floor.get(kind)! * floorUs;
  const b = proxy.get(kind)! * proxyUs;
  lines.push(`| ${kind} | ${a.toFixed(1)} | ${b.toFixed(1)} | ${(b - a >= 0 ? "+" : "") + (b - a).toFixed(1)} |`);
}
lines.push(`| all | ${floorUs.toFixed(1)} | ${proxyUs.toFixed(1)} | +${(proxyUs - floorUs).toFixed(1)} |`);
process.stdout.write(`${lines.join("\n")}\n`);
