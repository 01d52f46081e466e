import { GatewayError, type AttemptCause } from "@gateway/contracts";
import type { AttemptOutcome } from "./attempt-context.ts";
import type { UpstreamShapeAdapter } from "../upstreams/index.ts";
import { tryJson } from "../core/request-fields.ts";
import { maskIdentifiers } from "./mask-identifiers.ts";
import type { CallAbort } from "./upstream-client.ts";

/**
 * Why one upstream attempt failed, and whether another target may be tried. Everything that
 * happens before the first byte reaches the client is retryable except a client error.
 */
export class AttemptFailure extends Error {
  readonly retryable: boolean;
  readonly timeout: boolean;
  /** Set when the client must see this error as is (the upstream rejected the request itself). */
  readonly clientError: GatewayError | null;
  /**
   * What a client may be told of it: the message without the upstream's own words (they are
   * logged, never shown: contract section 14).
   */
  readonly shown: string;
  /** What the attempt is billed for when it ends the request (a key revoked mid-request); null: nothing. */
  readonly outcome: AttemptOutcome | null;
  /**
   * Why the attempt ended, from the bounded list the billing event, the metrics and the console share
   * (`cause` is Error's own: the underlying error).
   */
  readonly attemptCause: AttemptCause;
  /** The upstream's HTTP status, null when none came (or none is known: a transport failure). */
  readonly status: number | null;

  constructor(
    message: string,
    options: { retryable: boolean; timeout?: boolean; clientError?: GatewayError; outcome?: AttemptOutcome; shown?: string; cause?: unknown; attemptCause?: AttemptCause; status?: number },
  ) {
    super(message, { cause: options.cause });
    this.name = "AttemptFailure";
    this.retryable = options.retryable;
    this.timeout = options.timeout ?? false;
    this.clientError = options.clientError ?? null;
    this.outcome = options.outcome ?? null;
    this.shown = options.shown ?? message;
    this.attemptCause = options.attemptCause ?? (this.timeout ? "timeout" : "stream_error");
    this.status = options.status ?? null;
  }
}

/** Raised when the attempt's own timer fired: a stream's first byte, or a JSON call's whole answer, late. */
export class FirstByteTimeout extends Error {
  constructor() {
    super("no first byte from the upstream in time");
    this.name = "FirstByteTimeout";
  }
}

/** Why an attempt's upstream call was aborted from outside the relay: the request was terminated (a revoked key). */
export class Terminated extends Error {
  readonly error: GatewayError;

  constructor(error: GatewayError) {
    super(error.message);
    this.name = "Terminated";
    this.error = error;
  }
}

const TIMEOUT_CODES = new Set(["UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT", "UND_ERR_CONNECT_TIMEOUT"]);

/** A thrown transport error -> a retryable failure (connection error, reset, timeout). */
export function transportFailure(error: unknown, abort: CallAbort): AttemptFailure {
  if (error instanceof AttemptFailure) return error;
  const reason = abort.aborted ? abort.reason : undefined;
  const code = (error as { code?: string } | null)?.code;
  const timeout = reason instanceof FirstByteTimeout || (code !== undefined && TIMEOUT_CODES.has(code));
  const message = timeout ? "the upstream timed out" : `the upstream connection failed (${code ?? (error as Error)?.name ?? "error"})`;
  return new AttemptFailure(message, { retryable: true, timeout, cause: error, attemptCause: timeout ? "timeout" : "connect_error" });
}

/** An upstream's error status as an attempt's cause. */
function statusCause(status: number): AttemptCause {
  if (status === 429) return "http_429";
  return status >= 500 ? "http_5xx" : "http_4xx";
}

/** Upstream statuses that another target may fix: timeouts, limits, its own faults, its config. */
function retryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500 || status === 401 || status === 403 || status === 404;
}

/**
 * An upstream's error status. A status about the upstream itself (401/403/429/5xx...) keeps its
 * message for the log only: a client never sees it (it may name the provider account). A 400 is
 * about the client's own request: its message is passed on, identifiers masked.
 */
export function statusFailure(status: number, bodyText: string, adapter: UpstreamShapeAdapter): AttemptFailure {
  const message = adapter.errorMessage(tryJson(bodyText));
  if (retryableStatus(status)) {
    return new AttemptFailure(`the upstream answered ${status}${message ? `: ${message}` : ""}`, {
      retryable: true,
      timeout: status === 408,
      shown: `the upstream answered ${status}`,
      attemptCause: statusCause(status),
      status,
    });
  }
  return new AttemptFailure(`the upstream rejected the request (${status})${message ? `: ${message}` : ""}`, {
    retryable: false,
    clientError: new GatewayError("upstream_rejected", message ? maskIdentifiers(message) : `The upstream rejected the request (${status}).`),
    attemptCause: statusCause(status),
    status,
  });
}
