import type { Attempt, AttemptCause } from "@gateway/contracts";
import type { Target } from "../routing/routing-table.ts";
import type { AttemptOutcome } from "./attempt-context.ts";
import type { AttemptFailure } from "./attempt-failure.ts";

/**
 * One upstream attempt as the billing event carries it (contract section 20): one small object
 * per attempt, built from what the attempt already reports. Its time to first byte counts from the
 * attempt's own start (a stream's first event; a JSON answer's whole body).
 */
export function answeredAttempt(target: Target, outcome: AttemptOutcome, attemptStart: number, requestStart: number, now: number): Attempt {
  const ttfbMs = outcome.ttfbMs === null ? null : Math.max(0, outcome.ttfbMs - (attemptStart - requestStart));
  return {
    upstream: target.upstream.name,
    upstreamModel: target.model,
    cause: outcomeCause(outcome.status),
    // An answer that reached the gateway (its first event or its body) came with a 200.
    status: ttfbMs === null ? null : 200,
    durationMs: Math.max(0, now - attemptStart),
    ttfbMs,
  };
}

/** An attempt that failed before its answer reached the client. */
export function failedAttempt(target: Target, failure: AttemptFailure, attemptStart: number, now: number): Attempt {
  return {
    upstream: target.upstream.name,
    upstreamModel: target.model,
    cause: failure.attemptCause,
    status: failure.status,
    durationMs: Math.max(0, now - attemptStart),
    ttfbMs: null,
  };
}

/** An attempt that answered: ok, cut after its first byte, or left by its client. */
function outcomeCause(status: AttemptOutcome["status"]): AttemptCause {
  switch (status) {
    case "ok":
      return "ok";
    case "client_aborted":
      return "client_aborted";
    case "error":
      return "stream_error";
    default: {
      const never: never = status;
      throw new Error(`unknown outcome ${String(never)}`);
    }
  }
}
