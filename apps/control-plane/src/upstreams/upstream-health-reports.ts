import type { RedisClient } from "@gateway/redis-store";
import { z } from "zod";

/**
 * What each proxy process publishes every 5 s (contract section 20): one field of the hash
 * `{prefix}:upstream-health` per process, its JSON the process's last minute per upstream.
 * A field older than `UPSTREAM_HEALTH_STALE_MS` is a process that stopped reporting (it died, or
 * lost Redis): shown as stale, never summed into the live figures.
 */
export const UPSTREAM_HEALTH_WINDOW_MS = 60_000;
export const UPSTREAM_HEALTH_STALE_MS = 30_000;

export const CIRCUIT_STATES = ["closed", "half_open", "open"] as const;
export type CircuitState = (typeof CIRCUIT_STATES)[number];

const count = z.number().int().nonnegative();
const milliseconds = z.number().nonnegative().nullable().catch(null);

/** Loose, as vercel/ai reads wire payloads: the fields used, anything else ignored. */
const upstreamFiguresSchema = z.object({
  attempts: count,
  /** Failed attempts per cause (ATTEMPT_CAUSES but `ok`). */
  failures: z.record(z.string(), count).default({}),
  circuit: z.enum(CIRCUIT_STATES),
  p50Ms: milliseconds.default(null),
  p99Ms: milliseconds.default(null),
  ttfbP50Ms: milliseconds.default(null),
});
export type UpstreamFigures = z.output<typeof upstreamFiguresSchema>;

const processReportSchema = z.object({
  at: z.number().int().positive(),
  upstreams: z.record(z.string(), upstreamFiguresSchema),
});

export interface ProcessReport {
  processId: string;
  /** epoch ms of the report */
  at: number;
  upstreams: Record<string, UpstreamFigures>;
}

/** The hash's name (`{prefix}:upstream-health`), as the proxies write it. */
export function upstreamHealthKey(prefix: string): string {
  return prefix ? `${prefix}:upstream-health` : "upstream-health";
}

/**
 * Every process's last report, as published. One HGETALL: a field per proxy process, so a few
 * dozen small JSON values. A field that does not parse (another version's format) is left out and
 * returned apart, so the route can log it without failing the page.
 */
export async function readUpstreamHealthReports(redis: RedisClient, prefix: string): Promise<{ reports: ProcessReport[]; unreadable: string[] }> {
  const fields = await redis.hgetall(upstreamHealthKey(prefix));
  const reports: ProcessReport[] = [];
  const unreadable: string[] = [];
  for (const [processId, text] of Object.entries(fields)) {
    const parsed = processReportSchema.safeParse(parseJson(text));
    if (parsed.success) reports.push({ processId, ...parsed.data });
    else unreadable.push(processId);
  }
  reports.sort((a, b) => (a.processId < b.processId ? -1 : a.processId > b.processId ? 1 : 0));
  return { reports, unreadable };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
