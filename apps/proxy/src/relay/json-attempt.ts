import { AttemptFailure, FirstByteTimeout, statusFailure, transportFailure } from "./attempt-failure.ts";
import { upstreamCall, type AttemptContext, type AttemptOutcome } from "./attempt-context.ts";
import { CallAbort } from "./upstream-client.ts";
import { estimateUsage } from "./usage-estimate.ts";

/**
 * One non-streaming attempt: the whole upstream body is read and checked before the client gets
 * a byte, so a cut or broken body is still a failure another target can fix. Same shape, the body
 * that reaches the client is the upstream's own bytes, never re-serialised; across shapes it is
 * the translation of that body. Usage is always read from the upstream's body in its own format.
 */
export async function jsonAttempt(context: AttemptContext): Promise<AttemptOutcome> {
  const { target, upstreamWire, translation } = context;
  const attempt = new CallAbort();
  const call = upstreamCall(context, attempt);
  context.clientConnection.watch(attempt);
  const timer = setTimeout(() => attempt.abort(new FirstByteTimeout()), target.upstream.firstByteTimeoutMs);
  try {
    const upstream = await context.client.read(call);
    if (upstream.statusCode >= 400) throw statusFailure(upstream.statusCode, upstream.body.toString("utf8"), context.adapter);
    const bytes = upstream.body;
    let parsed: unknown;
    try {
      parsed = JSON.parse(bytes.toString("utf8"));
    } catch (error) {
      throw new AttemptFailure("the upstream sent a body that is not JSON", { retryable: true, cause: error });
    }
    clearTimeout(timer);
    const usage = upstreamWire.usageFromResponse(parsed);
    // Same shape: the upstream's bytes as they came (no re-encoding); across shapes: the translation.
    const body = translation ? Buffer.from(JSON.stringify(translation.response(parsed, context.request))) : bytes;
    const ttfbMs = Date.now() - context.startedAt;
    context.response.writeHead(200, { "content-type": "application/json", "content-length": body.length });
    context.response.end(body);
    return { status: "ok", usage: usage ?? estimateUsage(context.requestBytes, 0), estimated: usage === null, ttfbMs };
  } catch (error) {
    if (context.clientConnection.gone) {
      return { status: "client_aborted", usage: estimateUsage(context.requestBytes, 0), estimated: true, ttfbMs: null };
    }
    throw transportFailure(error, attempt);
  } finally {
    clearTimeout(timer);
    context.clientConnection.unwatch();
  }
}
