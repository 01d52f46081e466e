import type { Request, Response } from "express";
import { readUpstreamHealth, UPSTREAM_HEALTH_MAX_AGE_MS } from "@gateway/redis-store";
import type { ControlPlaneServices } from "../services.ts";
import { aggregateUpstreamHealth } from "../upstreams/aggregate-upstream-health.ts";
import { vendorUpstreams } from "../upstreams/vendor-upstreams.ts";
import { UPSTREAM_HEALTH_WINDOW_MS, type UpstreamHealthReport } from "../vendors/upstream-schemas.ts";
import { vendorOf } from "../vendors/vendor-auth.ts";

const iso = (epochMs: number) => new Date(epochMs).toISOString();

/**
 * GET /api/upstreams (scope upstreams:read): the health of the upstreams serving the vendor's
 * models, from the proxies' snapshots in Redis (circuit, attempts and failures by cause, latency),
 * merged over the processes that reported within 30 s. Older snapshots are read too (a writer drops
 * them after a minute), to tell a stale upstream from one never reported.
 */
export function upstreamHealthRoute(services: ControlPlaneServices) {
  return async (request: Request, response: Response): Promise<void> => {
    const now = Date.now();
    const [upstreams, snapshots] = await Promise.all([
      vendorUpstreams(services.db.prisma, vendorOf(request).vendorId),
      readUpstreamHealth(services.redis, services.config.REDIS_PREFIX, { now, maxAgeMs: Number.MAX_SAFE_INTEGER }),
    ]);
    const health = aggregateUpstreamHealth(snapshots, upstreams.map((upstream) => upstream.name), now);
    const body: UpstreamHealthReport = {
      object: "upstream_health",
      generated_at: iso(now),
      window_seconds: UPSTREAM_HEALTH_WINDOW_MS / 1000,
      stale_after_seconds: UPSTREAM_HEALTH_MAX_AGE_MS / 1000,
      processes: health.processes.map((seen) => ({ id: seen.processId, reported_at: iso(seen.at), stale: seen.stale })),
      data: health.upstreams.map((upstream, index) => ({
        object: "upstream",
        name: upstream.name,
        models: upstreams[index]!.models,
        state: upstream.state,
        reported_at: upstream.reportedAt === null ? null : iso(upstream.reportedAt),
        processes: upstream.processes,
        circuit: upstream.circuit,
        attempts: upstream.attempts,
        failures: upstream.failures,
        p50_ms: upstream.p50Ms,
        p99_ms: upstream.p99Ms,
        ttfb_p50_ms: upstream.ttfbP50Ms,
      })),
    };
    response.json(body);
  };
}
