import { ATTEMPT_CAUSES } from "@gateway/contracts";
import { z } from "zod";
import type { RedisClient } from "./connect.ts";

/**
 * Each upstream's health as one proxy process saw it over the last minute (contract section 20),
 * for the console: every proxy process writes its snapshot every few seconds into one hash,
 * `{prefix}:upstream-health`, field = its process id, value = the JSON below. A process that stops
 * writing (stopped, killed) is ignored by readers once its snapshot is older than
 * UPSTREAM_HEALTH_MAX_AGE_MS, and its field is dropped by the next writer a minute later; the whole
 * hash expires when no proxy writes at all.
 */
export const UPSTREAM_HEALTH_MAX_AGE_MS = 30_000;
/** Fields older than this are deleted by writers (a process gone for good). */
const STALE_FIELD_MS = 60_000;
/** The hash expires this long after the last write of any process. */
const HASH_TTL_MS = 120_000;

export const CIRCUIT_STATES = ["closed", "half_open", "open"] as const;
export type CircuitStateName = (typeof CIRCUIT_STATES)[number];

const failureCause = z.enum(ATTEMPT_CAUSES);

export const upstreamHealthSchema = z.object({
  /** Attempts that ended in the last minute, whatever their cause. */
  attempts: z.number().int().nonnegative(),
  /** Those that did not end `ok`, by cause (only causes seen; `client_aborted` is the client's doing, not the upstream's). */
  failures: z.partialRecord(failureCause, z.number().int().nonnegative()),
  circuit: z.enum(CIRCUIT_STATES),
  /** Attempt duration percentiles over the minute (ms, within 10%); null without attempts. */
  p50Ms: z.number().nonnegative().nullable(),
  p99Ms: z.number().nonnegative().nullable(),
  /** Median time to the answer's first byte (ms); null when no attempt got one. */
  ttfbP50Ms: z.number().nonnegative().nullable(),
});
export type UpstreamHealth = z.infer<typeof upstreamHealthSchema>;

export const upstreamHealthSnapshotSchema = z.object({
  /** When the process wrote it (epoch ms). */
  at: z.number().int(),
  upstreams: z.record(z.string(), upstreamHealthSchema),
});
export type UpstreamHealthSnapshot = z.infer<typeof upstreamHealthSnapshotSchema>;

/** The hash's key: `{prefix}:upstream-health` (`upstream-health` without a prefix), as every other key is named. */
export function upstreamHealthKey(prefix: string): string {
  return prefix ? `${prefix}:upstream-health` : "upstream-health";
}

/** One proxy process's side: writes its snapshot under its own field. */
export class UpstreamHealthWriter {
  private readonly redis: RedisClient;
  private readonly key: string;
  readonly processId: string;
  private writes = 0;

  constructor(redis: RedisClient, prefix: string, processId: string) {
    this.redis = redis;
    this.key = upstreamHealthKey(prefix);
    this.processId = processId;
  }

  /** Writes the snapshot (and keeps the hash alive); once a minute also drops other processes' dead fields. */
  async write(snapshot: UpstreamHealthSnapshot): Promise<void> {
    await this.redis.multi().hset(this.key, this.processId, JSON.stringify(snapshot)).pexpire(this.key, HASH_TTL_MS).exec();
    this.writes += 1;
    if (this.writes % 12 === 1) await this.dropStale(snapshot.at);
  }

  /** Removes this process's field (a clean shutdown). */
  async remove(): Promise<void> {
    await this.redis.hdel(this.key, this.processId);
  }

  private async dropStale(now: number): Promise<void> {
    const fields = await this.redis.hgetall(this.key);
    const stale = Object.entries(fields)
      .filter(([, value]) => (parseSnapshot(value)?.at ?? 0) < now - STALE_FIELD_MS)
      .map(([field]) => field);
    if (stale.length > 0) await this.redis.hdel(this.key, ...stale);
  }
}

function parseSnapshot(value: string): UpstreamHealthSnapshot | null {
  try {
    const parsed = upstreamHealthSnapshotSchema.safeParse(JSON.parse(value));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** One process's snapshot as a reader gets it. */
export interface ProcessUpstreamHealth {
  processId: string;
  snapshot: UpstreamHealthSnapshot;
}

/**
 * Every proxy process's recent snapshot (written within `maxAgeMs`, 30 s by default), sorted by
 * process id; fields that are older or malformed are left out.
 */
export async function readUpstreamHealth(redis: RedisClient, prefix: string, options: { now?: number; maxAgeMs?: number } = {}): Promise<ProcessUpstreamHealth[]> {
  const now = options.now ?? Date.now();
  const maxAgeMs = options.maxAgeMs ?? UPSTREAM_HEALTH_MAX_AGE_MS;
  const fields = await redis.hgetall(upstreamHealthKey(prefix));
  const fresh: ProcessUpstreamHealth[] = [];
  for (const [processId, value] of Object.entries(fields)) {
    const snapshot = parseSnapshot(value);
    if (snapshot !== null && snapshot.at >= now - maxAgeMs) fresh.push({ processId, snapshot });
  }
  return fresh.sort((a, b) => (a.processId < b.processId ? -1 : a.processId > b.processId ? 1 : 0));
}

const CIRCUIT_RANK: Record<CircuitStateName, number> = { closed: 0, half_open: 1, open: 2 };

/**
 * The processes' views of each upstream as one: attempts and failures summed, the worst circuit
 * (each process has its own breaker), p50s weighted by attempts and the highest p99 (percentiles of
 * separate processes cannot be merged exactly; these are close and never hide a slow process).
 */
export function mergeUpstreamHealth(processes: readonly ProcessUpstreamHealth[]): Record<string, UpstreamHealth & { processes: number }> {
  const merged: Record<string, UpstreamHealth & { processes: number; p50Weight: number; ttfbWeight: number }> = {};
  for (const { snapshot } of processes) {
    for (const [name, health] of Object.entries(snapshot.upstreams)) {
      const into = (merged[name] ??= { attempts: 0, failures: {}, circuit: "closed", p50Ms: null, p99Ms: null, ttfbP50Ms: null, processes: 0, p50Weight: 0, ttfbWeight: 0 });
      into.processes += 1;
      into.attempts += health.attempts;
      for (const [cause, count] of Object.entries(health.failures) as [keyof UpstreamHealth["failures"], number][]) into.failures[cause] = (into.failures[cause] ?? 0) + count;
      if (CIRCUIT_RANK[health.circuit] > CIRCUIT_RANK[into.circuit]) into.circuit = health.circuit;
      if (health.p50Ms !== null && health.attempts > 0) {
        into.p50Ms = ((into.p50Ms ?? 0) * into.p50Weight + health.p50Ms * health.attempts) / (into.p50Weight + health.attempts);
        into.p50Weight += health.attempts;
      }
      if (health.p99Ms !== null) into.p99Ms = Math.max(into.p99Ms ?? 0, health.p99Ms);
      if (health.ttfbP50Ms !== null && health.attempts > 0) {
        into.ttfbP50Ms = ((into.ttfbP50Ms ?? 0) * into.ttfbWeight + health.ttfbP50Ms * health.attempts) / (into.ttfbWeight + health.attempts);
        into.ttfbWeight += health.attempts;
      }
    }
  }
  const result: Record<string, UpstreamHealth & { processes: number }> = {};
  for (const [name, { p50Weight: _p50, ttfbWeight: _ttfb, ...health }] of Object.entries(merged)) result[name] = health;
  return result;
}
