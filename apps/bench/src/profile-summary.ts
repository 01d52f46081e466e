import { readFile } from "node:fs/promises";
import { basename } from "node:path";

/** The parts of a V8 `.cpuprofile` (what `node --cpu-prof` writes) that self time needs. */
export interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number } }>;
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface SelfTime {
  /** `name (file:line)`; V8's own buckets keep their names: (garbage collector), (program), (idle). */
  frame: string;
  selfMs: number;
  /** Share of the busy time (everything but `(idle)`). */
  percent: number;
}

function frameName(callFrame: CpuProfile["nodes"][number]["callFrame"]): string {
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
  const { samples, timeDeltas } = profile;
  const gaps = timeDeltas.slice(1).filter((gap) => gap >= 0).sort((a, b) => a - b);
  const medianGap = gaps[Math.floor(gaps.length / 2)] ?? 0;
  for (let index = 0; index < samples.length; index += 1) {
    const next = timeDeltas[index + 1];
    const duration = next !== undefined && next >= 0 ? next : medianGap;
    const frame = frames.get(samples[index]!) ?? "(unknown)";
    totals.set(frame, (totals.get(frame) ?? 0) + duration);
  }
  let busy = 0;
  for (const [frame, micros] of totals) if (frame !== "(idle)") busy += micros;
  return [...totals]
    .map(([frame, micros]) => ({ frame, selfMs: micros / 1000, percent: frame === "(idle)" || busy === 0 ? Number.NaN : (micros / busy) * 100 }))
    .sort((a, b) => b.selfMs - a.selfMs);
}

export function formatSelfTimes(times: readonly SelfTime[], limit = 25): string {
  const lines = ["| self ms | % of busy | function |", "|---:|---:|---|"];
  for (const time of times.slice(0, limit)) {
    lines.push(`| ${time.selfMs.toFixed(0)} | ${Number.isFinite(time.percent) ? time.percent.toFixed(1) : "–"} | \`${time.frame}\` |`);
  }
  return lines.join("\n");
}

export async function readProfile(path: string): Promise<CpuProfile> {
  return JSON.parse(await readFile(path, "utf8")) as CpuProfile;
}
