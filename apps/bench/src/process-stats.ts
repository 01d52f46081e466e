import { readFile } from "node:fs/promises";

/** CPU time a process has used, in clock ticks (`getconf CLK_TCK`, 100 on Linux). */
export interface CpuTicks {
  user: number;
  system: number;
}

/**
 * utime and stime out of `/proc/<pid>/stat` (fields 14 and 15, proc(5)). The command name in
 * field 2 may hold spaces and parentheses, so counting starts after its last `)`.
 */
export function parseProcStat(text: string): CpuTicks {
  const rest = text.slice(text.lastIndexOf(")") + 2).split(" ");
  // rest[0] is field 3 (state): field N sits at rest[N - 3].
  const user = Number(rest[11]);
  const system = Number(rest[12]);
  if (!Number.isFinite(user) || !Number.isFinite(system)) throw new Error(`unreadable /proc stat line: ${text.slice(0, 80)}`);
  return { user, system };
}

/** Resident set size in bytes from `/proc/<pid>/status` (`VmRSS:  123456 kB`). */
export function parseRssBytes(statusText: string): number {
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(statusText);
  if (!match) throw new Error("no VmRSS line in /proc status");
  return Number(match[1]) * 1024;
}

export function ticksBetween(before: CpuTicks, after: CpuTicks): number {
  return after.user + after.system - (before.user + before.system);
}

/** CPU microseconds the process spent per request served between two readings. */
export function cpuPerRequestUs(before: CpuTicks, after: CpuTicks, ticksPerSecond: number, requests: number): number {
  if (requests <= 0) return Number.NaN;
  return (ticksBetween(before, after) / ticksPerSecond) * 1e6 / requests;
}

/** Share of one core used between two readings `elapsedMs` apart (100 = one core busy). */
export function cpuPercent(before: CpuTicks, after: CpuTicks, ticksPerSecond: number, elapsedMs: number): number {
  if (elapsedMs <= 0) return Number.NaN;
  return (ticksBetween(before, after) / ticksPerSecond) * 1000 / elapsedMs * 100;
}

/** A thread's scheduler counters (`/proc/<pid>/schedstat`, in ns): time on a core, time runnable but waiting for one. */
export interface SchedStat {
  runNs: number;
  waitNs: number;
}

export function parseSchedstat(text: string): SchedStat {
  const [run, wait] = text.trim().split(/\s+/).map(Number);
  if (!Number.isFinite(run) || !Number.isFinite(wait)) throw new Error(`unreadable schedstat: ${text.slice(0, 80)}`);
  return { runNs: run!, waitNs: wait! };
}

/**
 * Share of wall time a thread spent runnable but waiting for a core. Near 0 on a quiet machine
 * (each process has its core); high when other work shares the cores, which inflates latency.
 */
export function waitPercent(before: SchedStat, after: SchedStat, elapsedMs: number): number {
  if (elapsedMs <= 0) return Number.NaN;
  return ((after.waitNs - before.waitNs) / 1e6 / elapsedMs) * 100;
}

/** The main thread's counters (`self` for this process): where a Node server does its work. */
export async function readSchedstat(pid: number | "self"): Promise<SchedStat> {
  return parseSchedstat(await readFile(`/proc/${pid}/schedstat`, "utf8"));
}

export async function readCpuTicks(pid: number): Promise<CpuTicks> {
  return parseProcStat(await readFile(`/proc/${pid}/stat`, "utf8"));
}

export async function readRssBytes(pid: number): Promise<number> {
  return parseRssBytes(await readFile(`/proc/${pid}/status`, "utf8"));
}

/** Samples a process's RSS every `intervalMs` until stopped; keeps the peak. */
export function sampleRss(pid: number, intervalMs = 100): { stop(): Promise<number> } {
  let peak = 0;
  let reading: Promise<void> = Promise.resolve();
  const read = () => {
    reading = readRssBytes(pid).then(
      (rss) => {
        peak = Math.max(peak, rss);
      },
      () => undefined,
    );
  };
  read();
  const timer = setInterval(read, intervalMs);
  return {
    async stop() {
      clearInterval(timer);
      await reading;
      read();
      await reading;
      return peak;
    },
  };
}
