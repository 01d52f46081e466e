import { readdir, readFile } from "node:fs/promises";

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

/** What a process tree needs of a stat line: the parent, and the CPU time of reaped children (fields 4, 16, 17). */
export interface ProcEntry extends CpuTicks {
  pid: number;
  ppid: number;
  childUser: number;
  childSystem: number;
}

export function parseProcEntry(pid: number, text: string): ProcEntry {
  const rest = text.slice(text.lastIndexOf(")") + 2).split(" ");
  const { user, system } = parseProcStat(text);
  return { pid, ppid: Number(rest[1]), user, system, childUser: Number(rest[13]), childSystem: Number(rest[14]) };
}

/** `root` and every live descendant of it, from a list of /proc entries. */
export function treeOf(root: number, entries: readonly ProcEntry[]): ProcEntry[] {
  const children = new Map<number, ProcEntry[]>();
  for (const entry of entries) children.set(entry.ppid, [...(children.get(entry.ppid) ?? []), entry]);
  const tree = entries.filter((entry) => entry.pid === root);
  for (let index = 0; index < tree.length; index += 1) tree.push(...(children.get(tree[index]!.pid) ?? []));
  return tree;
}

/**
 * CPU ticks of a whole process tree (a cluster primary and its workers, a postmaster and its
 * backends): every live process's own time plus what its reaped children used, so a backend that
 * exited between two readings still counts.
 */
export function treeTicks(tree: readonly ProcEntry[]): CpuTicks {
  let user = 0;
  let system = 0;
  for (const entry of tree) {
    user += entry.user + entry.childUser;
    system += entry.system + entry.childSystem;
  }
  return { user, system };
}

async function readProcEntries(): Promise<ProcEntry[]> {
  const entries: ProcEntry[] = [];
  for (const name of await readdir("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      entries.push(parseProcEntry(Number(name), await readFile(`/proc/${name}/stat`, "utf8")));
    } catch {
      // Exited while listing.
    }
  }
  return entries;
}

export async function readTree(pid: number): Promise<ProcEntry[]> {
  const tree = treeOf(pid, await readProcEntries());
  if (tree.length === 0) throw new Error(`no process ${pid}`);
  return tree;
}

export async function readTreeCpuTicks(pid: number): Promise<CpuTicks> {
  return treeTicks(await readTree(pid));
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

/** The largest RSS of these processes (a cluster's workers each have their own heap); gone ones count 0. */
export async function readLargestRssBytes(pids: readonly number[]): Promise<number> {
  const sizes = await Promise.all(pids.map((pid) => readRssBytes(pid).catch(() => 0)));
  return Math.max(0, ...sizes);
}

/** Samples the RSS of the largest process in the tree of `pid` every `intervalMs` until stopped; keeps the peak. */
export function sampleRss(pid: number, intervalMs = 100): { stop(): Promise<number> } {
  let peak = 0;
  let reading: Promise<void> = Promise.resolve();
  // The tree is listed once: a cluster's processes stay the same through a run.
  const pids = readTree(pid).then((tree) => tree.map((entry) => entry.pid), () => [pid]);
  const read = () => {
    reading = pids.then(readLargestRssBytes).then(
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
