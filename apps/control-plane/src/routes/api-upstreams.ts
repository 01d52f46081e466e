import type { Request, Response } from "express";
import type { ControlPlaneServices } from "../services.ts";
import { aggregateUpstreamHealth } from "../upstreams/aggregate-upstream-health.ts";
import { readUpstreamHealthReports, UPSTREAM_HEALTH_STALE_MS, UPSTREAM_HEALTH_WINDOW_MS } from "../upstreams/upstream-health-reports.ts";
import { vendorUpstreams } from "../upstreams/vendor-upstreams.ts";
import type { UpstreamHealthReport } from "../vendors/upstream-schemas.ts";
import { vendorOf } from "../vendors/vendor-auth.ts";

const iso = (epochMs: number) => new Date(epochMs).toISOString();

/**
 * GET /api/upstreams (scope upstreams:read): the health of the upstreams serving the vendor's
 * models, from the proxies' reports in Redis (circuit, attempts and failures by cause, latency),
 * summed over the processes that reported within 30 s.
 */
export function upstreamHealthRoute(services: ControlPlaneServices) {
  return async (request: Request, response: Response): Promise<void> => {
    const [upstreams, { reports, unreadable }] = await Promise.all([
      vendorUpstreams(services.db.prisma, vendorOf(request).vendorId),
      readUpstreamHealthReports(services.redis, services.config.REDIS_PREFIX),
    ]);
    if (unreadable.length > 0) services.logger.warn({ processes: unreadable }, "unreadable upstream health reports left out");
    const now = Date.now();
    const health = aggregateUpstreamHealth(reports, upstreams.map((upstream) => upstream.name), now);
    const body: UpstreamHealthReport = {
      object: "upstream_health",
      generated_at: iso(now),
      window_seconds: UPSTREAM_HEALTH_WINDOW_MS / 1000,
      stale_after_seconds: UPSTREAM_HEALTH_STALE_MS / 1000,
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
