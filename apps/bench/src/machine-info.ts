import { readFileSync } from "node:fs";
import { cpus, release, totalmem } from "node:os";
import type { MachineInfo } from "./results.ts";

/** The CPU model from /proc/cpuinfo's first `model name` line. */
export function cpuModelOf(cpuinfo: string): string {
  return /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? "unknown";
}

/** The three load averages of /proc/loadavg ("" where there is none). */
export function loadAverage(): string {
  try {
    return readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  } catch {
    return "";
  }
}

export function machineInfo(): MachineInfo {
  let cpuinfo = "";
  try {
    cpuinfo = readFileSync("/proc/cpuinfo", "utf8");
  } catch {
    // Not Linux: the model stays unknown.
  }
  return {
    // The machine's cores, not this process's affinity (the driver itself is pinned to one).
    nproc: cpus().length,
    cpuModel: cpuModelOf(cpuinfo),
    node: process.version,
    kernel: release(),
    memoryGiB: Math.round(totalmem() / 1024 ** 3),
    loadBefore: loadAverage(),
    loadAfter: "",
  };
}
