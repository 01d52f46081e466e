import type { GatewayError } from "@gateway/contracts";
import { AttemptFailure, FirstByteTimeout, statusFailure, Terminated, transportFailure } from "./attempt-failure.ts";
import { drainThenAbort, upstreamCall, type AttemptContext, type AttemptOutcome } from "./attempt-context.ts";
import { CallAbort } from "./upstream-client.ts";
import { estimateUsage } from "./usage-estimate.ts";

/**
 * One non-streaming attempt: the whole upstream body is read and checked before the client gets
 * a byte, so a cut or broken body is still a failure another target can fix. Same shape, the body
 * that reaches the client is the upstream's own bytes, never re-serialised; across shapes it is
 * the translation of that body. Usage is always read from the upstream's body in its own format.
 *
 * Its one timer is the upstream's `response_ms` (contract section 14): an answer is slow as a
 * whole, and its headers may only come with it, so `first_byte_ms` (a stream's) would cut answers
 * that are merely long. A client that leaves is billed the answer's usage when it comes within the
 * drain.
 */
export async function jsonAttempt(context: AttemptContext): Promise<AttemptOutcome> {
  const { target, upstreamWire, translation, running } = context;
  const attempt = new CallAbort();
  const call = upstreamCall(context, attempt);
  context.clientConnection.watch(() => drainThenAbort(attempt, context.disconnectDrainMs ?? 0));
  const timer = setTimeout(() => attempt.abort(new FirstByteTimeout()), target.upstream.responseTimeoutMs);
  let terminated: GatewayError | null = null;
  // Nothing reaches the client before the whole answer: so far, only the input.
  const inputOnly = (): AttemptOutcome => ({ status: "client_aborted", usage: estimateUsage(context.requestBytes, null, 0), estimated: true, ttfbMs: null });
  // The in-flight registry reads this attempt's progress and may end it (a key refused mid-request).
  if (running !== undefined) {
    running.attempt = {
      progress: () => inputOnly().usage,
      terminate(error) {
        terminated = error;
        attempt.abort(new Terminated(error));
      },
    };
  }
  try {
    const upstream = await context.client.read(call);
    if (upstream.statusCode >= 400) throw statusFailure(upstream.statusCode, upstream.body.toString("utf8"), context.adapter);
    const bytes = upstream.body;
    let parsed: unknown;
    try {
      parsed = JSON.parse(bytes.toString("utf8"));
    } catch (error) {
      throw new AttemptFailure("the upstream sent a body that is not JSON", { retryable: true, cause: error, status: upstream.statusCode });
    }
    clearTimeout(timer);
    context.observer?.body(parsed);
    const usage = upstreamWire.usageFromResponse(parsed);
    const ttfbMs = Date.now() - context.startedAt;
    const billed = { usage: usage ?? estimateUsage(context.requestBytes, null, 0), estimated: usage === null, ttfbMs };
    // The client left while the answer came (within the drain): billed exactly, nothing written.
    if (context.clientConnection.gone) return { status: "client_aborted", ...billed };
    // Same shape: the upstream's bytes as they came (no re-encoding); across shapes: the translation.
    const body = translation ? Buffer.from(JSON.stringify(translation.response(parsed, context.request))) : bytes;
    context.response.writeHead(200, { "content-type": "application/json", "content-length": body.length });
    context.response.end(body);
    return { status: "ok", ...billed };
  } catch (error) {
    const ender = terminated as GatewayError | null;
    if (ender !== null) throw new AttemptFailure(ender.message, { retryable: false, clientError: ender, outcome: { ...inputOnly(), status: "error" }, cause: error, attemptCause: "client_aborted" });
    if (context.clientConnection.gone) return inputOnly();
    throw transportFailure(error, attempt);
  } finally {
    clearTimeout(timer);
    context.clientConnection.unwatch();
    if (running !== undefined) running.attempt = null;
  }
}
