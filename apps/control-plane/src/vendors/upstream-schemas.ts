import { CIRCUIT_STATES, UPSTREAM_HEALTH_MAX_AGE_MS } from "@gateway/redis-store";
import { z } from "zod";

/**
 * GET /api/upstreams (contract section 20): the health of the upstreams serving the vendor's
 * models, summed over the proxy processes' last-minute reports. The route answers with these
 * schemas and the OpenAPI document is generated from them.
 */

/** Each proxy process's snapshot covers its last minute. */
export const UPSTREAM_HEALTH_WINDOW_MS = 60_000;
/** A snapshot older than this is a process that stopped reporting (redis-store's bound). */
const UPSTREAM_HEALTH_STALE_MS = UPSTREAM_HEALTH_MAX_AGE_MS;

const isoDateTime = z.iso.datetime({ offset: true });
const count = z.number().int().nonnegative();
const latency = z.number().nonnegative().nullable();

export const upstreamHealthSchema = z.object({
  object: z.literal("upstream"),
  name: z.string().describe("The upstream's name in the gateway file."),
  models: z.array(z.string()).describe("Your models it serves (public names)."),
  state: z
    .enum(["reporting", "stale", "no_data"])
    .describe(`\`reporting\`: figures from processes that reported within ${UPSTREAM_HEALTH_STALE_MS / 1000} s; \`stale\`: only older reports (the figures are then empty); \`no_data\`: no proxy process has reported it.`),
  reported_at: isoDateTime.nullable().describe("The newest report that named it, stale or not."),
  processes: z.array(z.string()).describe("The proxy processes whose reports are summed."),
  circuit: z.enum(CIRCUIT_STATES).nullable().describe("The worst circuit-breaker state among those processes (`open` on any one is `open`); null without fresh data."),
  attempts: count.describe("Upstream attempts in the last minute, all processes."),
  failures: z.record(z.string(), count).describe("Failed attempts in the last minute by cause (connect_error, timeout, http_429, http_5xx, http_4xx, stream_error, client_aborted, circuit_open)."),
  p50_ms: latency.describe("Median attempt duration: the processes' medians weighted by their attempts."),
  p99_ms: latency.describe("99th percentile attempt duration: the highest of the processes' figures."),
  ttfb_p50_ms: latency.describe("Median time to the first byte: the processes' medians weighted by their attempts."),
});
export type UpstreamHealthObject = z.output<typeof upstreamHealthSchema>;

export const upstreamHealthReportSchema = z.object({
  object: z.literal("upstream_health"),
  generated_at: isoDateTime,
  window_seconds: z.literal(UPSTREAM_HEALTH_WINDOW_MS / 1000).describe("Each process reports its last minute."),
  stale_after_seconds: z.literal(UPSTREAM_HEALTH_STALE_MS / 1000).describe("A process report older than this is stale."),
  processes: z
    .array(z.object({ id: z.string(), reported_at: isoDateTime, stale: z.boolean() }))
    .describe("Every proxy process with a report, fresh or stale."),
  data: z.array(upstreamHealthSchema).describe("The upstreams serving your models, by name."),
});
export type UpstreamHealthReport = z.output<typeof upstreamHealthReportSchema>;
