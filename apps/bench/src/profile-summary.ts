import { readdir, readFile, stat } from "node:fs/promises";
import { basename, join } from "node:path";

/** The parts of a V8 `.cpuprofile` (what `node --cpu-prof` writes) that self time needs. */
export interface CpuProfile {
  nodes: Array<{ id: number; callFrame: CallFrame; children?: number[] }>;
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber?: number;
}

export interface SelfTime {
  /** `name (file:line)`; V8's own buckets keep their names: (garbage collector), (program), (idle). */
  frame: string;
  selfMs: number;
  /** Share of the busy time (everything but `(idle)`). */
  percent: number;
}

function frameName(callFrame: CallFrame): string {
  const name = callFrame.functionName || "(anonymous)";
  if (!callFrame.url) return name;
  const file = callFrame.url.replace(/^file:\/\//, "");
  const short = file.includes("/node_modules/") ? file.slice(file.lastIndexOf("/node_modules/") + 14) : basename(file);
  return `${name} (${short}:${callFrame.lineNumber + 1})`;
}

/**
 * Self time per function: each sample is charged the time until the next one (the last gets the
 * median gap), then samples are summed by function, whatever call path they were reached by.
 */
export function selfTimes(profile: CpuProfile): SelfTime[] {
  const frames = new Map<number, string>();
  for (const node of profile.nodes) frames.set(node.id, frameName(node.callFrame));
  const totals = new Map<string, number>();
  forEachSample(profile, (nodeId, duration) => {
    const frame = frames.get(nodeId) ?? "(unknown)";
    totals.set(frame, (totals.get(frame) ?? 0) + duration);
  });
  let busy = 0;
  for (const [frame, micros] of totals) if (frame !== "(idle)") busy += micros;
  return [...totals]
    .map(([frame, micros]) => ({ frame, selfMs: micros / 1000, percent: frame === "(idle)" || busy === 0 ? Number.NaN : (micros / busy) * 100 }))
    .sort((a, b) => b.selfMs - a.selfMs);
}

/** Each sample's node and the time charged to it: the gap to the next sample (the last gets the median gap). */
function forEachSample(profile: CpuProfile, visit: (nodeId: number, micros: number) => void): void {
  const { samples, timeDeltas } = profile;
  const gaps = timeDeltas.slice(1).filter((gap) => gap >= 0).sort((a, b) => a - b);
  const medianGap = gaps[Math.floor(gaps.length / 2)] ?? 0;
  for (let index = 0; index < samples.length; index += 1) {
    const next = timeDeltas[index + 1];
    visit(samples[index]!, next !== undefined && next >= 0 ? next : medianGap);
  }
}

/**
 * The kinds of work a Node proxy's time goes to, for comparing the gateway with the floor: each
 * frame by the file its code comes from (a bundle's frames through its source map). A native
 * frame (no file) counts as its caller's kind, but for the socket writes and reads, which are
 * the kernel's work.
 */
export const WORK_KINDS = [
  "own code",
  "garbage collection",
  "socket writes and reads",
  "undici",
  "node:http",
  "Node's ticks, events, timers",
  "Node's streams and sockets",
  "BullMQ and ioredis",
  "other libraries",
  "the rest (V8, Node's other modules, startup)",
] as const;
export type WorkKind = (typeof WORK_KINDS)[number];

const SOCKET_NATIVES = new Set(["writev", "writeBuffer", "writeLatin1String", "writeUtf8String", "writeAsciiString", "writeUcs2String", "readStart", "readStop", "shutdown"]);

/** The kind of a source file (a path or URL as the profile or the source map names it); null for native code. */
export function workKindOfSource(functionName: string, source: string): WorkKind | null {
  if (functionName === "(garbage collector)") return "garbage collection";
  // V8's own buckets: (program), (root).
  if (functionName.startsWith("(")) return "the rest (V8, Node's other modules, startup)";
  if (source === "") return SOCKET_NATIVES.has(functionName) ? "socket writes and reads" : null;
  if (source.startsWith("wasm")) return "undici"; // llhttp, undici's HTTP parser
  const module = source.includes("node_modules/") ? source.slice(source.lastIndexOf("node_modules/") + 13) : null;
  if (module !== null) {
    if (module.startsWith("undici/")) return "undici";
    if (module.startsWith("bullmq/") || module.startsWith("ioredis/") || module.startsWith("@ioredis/")) return "BullMQ and ioredis";
    return "other libraries";
  }
  if (source.startsWith("node:")) {
    if (/^node:_?http(_|$)|^node:internal\/http/.test(source)) return "node:http";
    if (/^node:(internal\/)?(timers|process\/task_queues|events)/.test(source)) return "Node's ticks, events, timers";
    if (/^node:(net|internal\/streams|internal\/stream_base_commons)/.test(source)) return "Node's streams and sockets";
    return "the rest (V8, Node's other modules, startup)";
  }
  if (source.includes("/chunks/chunk-")) return "the rest (V8, Node's other modules, startup)";
  return "own code";
}

/**
 * Share of the busy time (everything but idle) per kind of work. `sourceOf` names a frame's source
 * file (the bundle's frames mapped back to theirs); by default, the frame's URL.
 */
export function workKinds(profile: CpuProfile, sourceOf: (callFrame: CallFrame) => string = (callFrame) => callFrame.url): Map<WorkKind, number> {
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const kindOf = new Map<number, WorkKind>();
  const kind = (id: number): WorkKind => {
    const known = kindOf.get(id);
    if (known !== undefined) return known;
    const callFrame = nodes.get(id)!.callFrame;
    const found =
      workKindOfSource(callFrame.functionName, sourceOf(callFrame)) ?? (parent.has(id) ? kind(parent.get(id)!) : "the rest (V8, Node's other modules, startup)");
    kindOf.set(id, found);
    return found;
  };
  const totals = new Map<WorkKind, number>();
  let busy = 0;
  forEachSample(profile, (nodeId, micros) => {
    if (nodes.get(nodeId)?.callFrame.functionName === "(idle)") return;
    busy += micros;
    const of = kind(nodeId);
    totals.set(of, (totals.get(of) ?? 0) + micros);
  });
  const shares = new Map<WorkKind, number>();
  for (const of of WORK_KINDS) shares.set(of, busy === 0 ? 0 : (totals.get(of) ?? 0) / busy);
  return shares;
}

export function formatSelfTimes(times: readonly SelfTime[], limit = 25): string {
  const lines = ["| self ms | % of busy | function |", "|---:|---:|---|"];
  for (const time of times.slice(0, limit)) {
    lines.push(`| ${time.selfMs.toFixed(0)} | ${Number.isFinite(time.percent) ? time.percent.toFixed(1) : "–"} | \`${time.frame}\` |`);
  }
  return lines.join("\n");
}

/** A `.cpuprofile` file, or the last one (by name: `node --cpu-prof` names them by time) in a directory. */
export async function latestProfile(target: string): Promise<string> {
  if (!(await stat(target)).isDirectory()) return target;
  const profiles = (await readdir(target)).filter((name) => name.endsWith(".cpuprofile")).sort();
  if (profiles.length === 0) throw new Error(`no .cpuprofile in ${target}`);
  return join(target, profiles.at(-1)!);
}

export async function readProfile(path: string): Promise<CpuProfile> {
  return JSON.parse(await readFile(path, "utf8")) as CpuProfile;
}
