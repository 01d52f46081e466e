import { z } from "zod";
import { endpointSchema } from "./shapes.ts";

/**
 * The billing queue: produced by the proxy, consumed by the billing worker. The request id is the
 * ledger's primary key, so an event written twice (a re-sent job, a retried one) bills once.
 *
 * Two kinds of job (BILLING_JOB):
 * - `usage-batch`: what the proxy sends, the events of one flush (`{ events: [...] }`), its job id
 *   `batch:<first request id>:<count>`, so a batch re-sent after a lost reply is one job. One job
 *   per flush instead of one per request is most of the queue's cost gone (issue 18): BullMQ's
 *   add, fetch and finish scripts and its job hash run per job, not per event.
 * - `usage`: one event, its request id as the job id. The worker splits an event that can never be
 *   recorded out of its batch into such a job, which fails on its own and stays in the failed set
 *   (one failed job per bad event); proxies older than batches send these too.
 */
export const BILLING_QUEUE = "billing";

export const BILLING_JOB = { batch: "usage-batch", single: "usage" } as const;

/**
 * Options of every billing job (the proxy's batches, the worker's split-out events): retried with
 * backoff while failures are transient; failed jobs kept for an operator. Completed jobs are kept
 * (the last 1,000: with up to 500 events each, more would hold hundreds of MB of Redis) so a batch
 * re-sent after a lost reply finds its job id.
 */
export const BILLING_JOB_OPTIONS = {
  attempts: 20,
  backoff: { type: "exponential", delay: 500 },
  removeOnComplete: { count: 1_000 },
  removeOnFail: false,
} as const;

/** The data of a `usage-batch` job. */
export interface BillingBatch {
  events: BillingEvent[];
}

/** The job id of a batch: stable for the same events, so a re-sent batch is not queued twice. */
export function billingBatchJobId(events: readonly Pick<BillingEvent, "requestId">[]): string {
  return `batch:${events[0]?.requestId ?? "empty"}:${events.length}`;
}

/**
 * The events a billing job's data holds, unchecked: a batch's list, or the job's data as its one
 * event. For the worker (which validates each) and for tools and tests reading the queue.
 */
export function billingEventsOf(data: unknown): unknown[] {
  if (data !== null && typeof data === "object" && Array.isArray((data as { events?: unknown }).events)) return (data as { events: unknown[] }).events;
  return [data];
}

export const usageSchema = z.object({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  /** Part of inputTokens read from the provider's prompt cache (priced at the cached rate). */
  cachedInputTokens: z.number().int().nonnegative(),
  /** Part of inputTokens written to the cache (Anthropic cache_creation_input_tokens), 5-minute and 1-hour writes together. */
  cacheWriteTokens: z.number().int().nonnegative(),
  /**
   * Part of cacheWriteTokens written for one hour (Anthropic cache_creation.ephemeral_1h_input_tokens,
   * priced at cache_write_1h); the rest of cacheWriteTokens are 5-minute writes. Events queued by a
   * proxy that predates the field read as 0.
   */
  cacheWrite1hTokens: z.number().int().nonnegative().default(0),
  /** Part of outputTokens spent on reasoning (kept apart, priced once, as output). */
  reasoningTokens: z.number().int().nonnegative(),
  images: z.number().int().nonnegative(),
  /** Server-side web searches the upstream ran (Anthropic server_tool_use.web_search_requests), priced per search. */
  webSearchRequests: z.number().int().nonnegative().default(0),
});
export type Usage = z.infer<typeof usageSchema>;
/** A usage as a producer may write it: the parts added later may be left out (they read as 0). */
export type UsageInput = z.input<typeof usageSchema>;

export const EMPTY_USAGE: Usage = Object.freeze({
  inputTokens: 0,
  outputTokens: 0,
  cachedInputTokens: 0,
  cacheWriteTokens: 0,
  cacheWrite1hTokens: 0,
  reasoningTokens: 0,
  images: 0,
  webSearchRequests: 0,
});

/**
 * Why an upstream attempt ended (contract section 20): `ok`, or the failure's cause. Bounded, so it
 * can label metrics; the console shows it per attempt.
 */
export const ATTEMPT_CAUSES = ["ok", "connect_error", "timeout", "http_429", "http_5xx", "http_4xx", "stream_error", "client_aborted", "circuit_open"] as const;
export type AttemptCause = (typeof ATTEMPT_CAUSES)[number];

/** One upstream attempt of a request, in order (failover makes several). */
export const attemptSchema = z.object({
  upstream: z.string(),
  upstreamModel: z.string().nullable(),
  cause: z.enum(ATTEMPT_CAUSES),
  /** The upstream's HTTP status, null when none came (connect error, timeout before headers). */
  status: z.number().int().nullable(),
  /** From the attempt's start to its end (its last byte, or its failure). */
  durationMs: z.number().int().nonnegative(),
  /** Time to the first byte of the answer (streams: the first event), null when none came. */
  ttfbMs: z.number().int().nonnegative().nullable(),
});
export type Attempt = z.infer<typeof attemptSchema>;

export const billingEventSchema = z.object({
  requestId: z.string().startsWith("req_"),
  apiKeyId: z.string(),
  vendorId: z.string(),
  serverOption: z.string(),
  model: z.string(),
  /** Every model endpoint's name (`MODEL_ENDPOINTS`). */
  endpoint: endpointSchema,
  upstream: z.string().nullable(),
  upstreamModel: z.string().nullable(),
  /**
   * `interrupted`: the proxy serving the request died (SIGKILL, OOM); the sweeper billed it from the
   * in-flight journal's last checkpoint (always `estimated`).
   */
  status: z.enum(["ok", "error", "client_aborted", "interrupted"]),
  /** The client asked for a stream. Events queued by a proxy that predates the field read as false. */
  stream: z.boolean().default(false),
  /** True when the upstream never reported usage and the proxy estimated it. */
  estimated: z.boolean(),
  usage: usageSchema,
  startedAt: z.number().int(),
  finishedAt: z.number().int(),
  ttfbMs: z.number().int().nullable(),
  /** The upstream attempts, in order (at most MAX_ATTEMPTS). Events of proxies that predate the field read as none. */
  attempts: z.array(attemptSchema).max(16).default([]),
});
/** An event as a proxy builds it (`stream` may be left out) and as the worker receives it. */
export type BillingEvent = z.input<typeof billingEventSchema>;
