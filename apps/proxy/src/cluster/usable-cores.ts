import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";

/**
 * The cores this container may use: the CPUs it may run on (affinity), capped by its cgroup v2 CPU
 * quota (`cpu.max`, what a Kubernetes CPU limit sets), rounded up. At least 1.
 */
export function usableCores(cpuMaxPath = "/sys/fs/cgroup/cpu.max"): number {
  const cpus = availableParallelism();
  let text: string;
  try {
    text = readFileSync(cpuMaxPath, "utf8");
  } catch {
    return cpus;
  }
  return Math.max(1, Math.min(cpus, quotaCores(text) ?? cpus));
}

/** `cpu.max` is "<quota> <period>" in microseconds, or "max <period>" for no limit. */
export function quotaCores(cpuMax: string): number | null {
  const [quota, period] = cpuMax.trim().split(/\s+/);
  const q = Number(quota);
  const p = Number(period);
  if (quota === "max" || !Number.isFinite(q) || !Number.isFinite(p) || q <= 0 || p <= 0) return null;
  return Math.ceil(q / p);
}
