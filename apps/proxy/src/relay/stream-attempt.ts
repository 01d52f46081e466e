import type { EventSourceMessage } from "eventsource-parser";
import type { ServerResponse } from "node:http";
import type { GatewayError } from "@gateway/contracts";
import { AttemptFailure, FirstByteTimeout, statusFailure, Terminated, transportFailure } from "./attempt-failure.ts";
import { drainThenAbort, upstreamCall, type AttemptContext, type AttemptOutcome } from "./attempt-context.ts";
import { clientStream } from "./client-stream.ts";
import { CallAbort } from "./upstream-client.ts";
import { ClientChunk, UpstreamEvents } from "./upstream-events.ts";
import { OutputMeter } from "./output-meter.ts";
import { estimateUsage } from "./usage-estimate.ts";

const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache",
  connection: "keep-alive",
  "x-accel-buffering": "no",
};

/** Writes a chunk's pieces; false when the client's buffer is full. */
function writePieces(response: ServerResponse, pieces: Array<Buffer | string>): boolean {
  // No cork: node:http corks the socket at a response's first write in a tick and sends all of the
  // tick's writes (and the end, when it comes in the same tick) as one writev on the next.
  let flushed = true;
  for (const piece of pieces) flushed = response.write(piece);
  return flushed;
}

/**
 * `writePieces`, then the socket uncorked: what was written (the head too, when these are the
 * response's first bytes) is handed to the kernel now instead of on the next tick. Writes later in
 * the same tick cork the socket again, so the rest of the tick still leaves as one writev.
 */
export function writeNow(response: ServerResponse, pieces: Array<Buffer | string>): boolean {
  const flushed = writePieces(response, pieces);
  const socket = response.socket;
  if (socket !== null) while (socket.writableCorked > 0) socket.uncork();
  return flushed;
}

/**
 * One streaming attempt. Events are relayed (or translated to the client's shape) as each upstream
 * chunk arrives; nothing is sent until the first whole event is in and is not an error, so up to
 * then a failure moves on to the next target. After the first byte there is no retry: a failure
 * ends the stream with the client's shape's own final error event.
 *
 * Billing (contract section 14): the upstream's final usage when it came. A client that leaves is
 * written nothing more, but the upstream is read on for up to the drain for that final usage;
 * when it never comes, the estimate is flagged and never less than the output relayed (counted by
 * the meter, with the model family's tokenizer) nor than any usage the upstream did report.
 */
export async function streamAttempt(context: AttemptContext): Promise<AttemptOutcome> {
  const { target, response, running } = context;
  const attempt = new CallAbort();
  const call = upstreamCall(context, attempt, { accept: "text/event-stream" });
  const timer = setTimeout(() => attempt.abort(new FirstByteTimeout()), target.upstream.firstByteTimeoutMs);

  const stream = clientStream(context);
  const tracker = stream.tracker;
  const meter = new OutputMeter(tracker, target.model, context.tokenCounter ?? null, context.logger ?? null, context.requestId);
  let committed = false;
  let ttfbMs: number | null = null;
  // The client left: nothing more is written; the upstream is read on for its final usage.
  let draining = false;
  let terminated: GatewayError | null = null;
  // What the chunk's events give the client: the upstream's own bytes for those that reach it as
  // they came (same shape), frames for the rest.
  const out = new ClientChunk();
  let upstreamError: EventSourceMessage | null = null;
  const observer = context.observer;
  const events = new UpstreamEvents((event, raw, bytes, start, end) => {
    if (observer !== undefined) observer.event(event, tracker);
    if (draining) {
      tracker.observe(event);
      return;
    }
    if (tracker.isError(event)) {
      // Before the first byte an error event is a failed attempt; after it, the client gets the
      // gateway's own final error event (the upstream's words are logged with the outcome).
      if (!committed && out.empty) upstreamError = event;
      else out.frame(stream.upstreamError());
      upstreamError ??= event;
      return;
    }
    const frame = stream.event(event, raw);
    if (frame === null) out.raw(bytes, start, end);
    else out.frame(frame);
    if (!committed && upstreamError === null && !out.empty) commit();
  });

  // The first event that is not an error commits the attempt and goes out at once, before the rest
  // of its upstream chunk is read (an upstream that sends many events in one burst would otherwise
  // hold the client's first byte for all of them).
  let writable = true;
  const commit = () => {
    clearTimeout(timer);
    committed = true;
    ttfbMs = Date.now() - context.startedAt;
    response.writeHead(200, SSE_HEADERS);
    writable = writeNow(response, out.take());
  };

  // `outputTokens`: the meter's pre-token count (a lower bound of the tokens relayed) unless given.
  const outcome = (status: AttemptOutcome["status"], reason?: string, outputTokens?: number): AttemptOutcome => {
    const usage = tracker.usage();
    if (usage !== null) return { status, usage, estimated: false, ttfbMs, reason };
    return { status, usage: estimateUsage(context.requestBytes, tracker.reported(), outputTokens ?? meter.outputTokens), estimated: true, ttfbMs, reason };
  };
  // The final bill: when it is an estimate, the output counted exactly with the family's tokenizer
  // (on the token counter's thread; the pre-token count when that cannot be had).
  const settled = async (status: AttemptOutcome["status"], reason?: string): Promise<AttemptOutcome> => {
    if (tracker.usage() !== null) return outcome(status, reason);
    return outcome(status, reason, await meter.settledOutputTokens());
  };
  const endWithError = (message: string, reason?: string): AttemptOutcome => {
    if (!response.destroyed) response.end(stream.error(message));
    return outcome("error", reason ?? message);
  };

  // A paused upstream (the client's buffer was full) is resumed when the client leaves: the drain
  // reads on, and a `drain` event never comes from a closed response.
  let paused: (() => void) | null = null;
  context.clientConnection.watch(() => {
    draining = true;
    const resume = paused;
    paused = null;
    resume?.();
    drainThenAbort(attempt, context.disconnectDrainMs ?? 0);
  });
  // The in-flight registry reads this attempt's progress and may end it (a key refused mid-request).
  if (running !== undefined) {
    running.attempt = {
      progress: () => outcome("ok").usage,
      terminate(error) {
        terminated = error;
        if (committed && !response.writableEnded && !response.destroyed) response.end(stream.error(error.message, error.code, error.type));
        attempt.abort(new Terminated(error));
      },
    };
  }

  // Each upstream chunk, in the tick it arrives: its events go out at once; a client that cannot
  // take more pauses the upstream until it drains (or leaves: then the drain reads on).
  const relayChunk = (chunk: Buffer, resume: () => void): boolean => {
    writable = true;
    meter.add(chunk);
    events.push(chunk);
    if (draining) return true;
    if (!committed) {
      if (upstreamError) throw new AttemptFailure("the upstream sent an error event before any content", { retryable: true, status: 200 });
      return true;
    }
    if (!out.empty) writable = writePieces(response, out.take());
    if (writable) return true;
    paused = resume;
    response.once("drain", () => {
      paused = null;
      resume();
    });
    return false;
  };

  // A committed stream ends in the tick its upstream body ends, so the response's end leaves with
  // that tick's last events in one send. Before the first byte the outcome is the awaited call's
  // (a failure there moves on to the next target).
  let ended: AttemptOutcome | null = null;
  const endStream = (): void => {
    if (draining) {
      ended = outcome("client_aborted");
    } else if (!committed) {
      return;
    } else if (upstreamError) {
      response.end();
      ended = outcome("error", `the upstream sent an error event mid-stream: ${upstreamError.data}`);
    } else if (!tracker.complete) {
      ended = endWithError("The upstream stream ended before it was complete.");
    } else {
      response.end(stream.finish());
      ended = outcome("ok");
    }
  };

  try {
    const upstream = await context.client.stream(call, { chunk: relayChunk, end: endStream });
    if (upstream.statusCode >= 400) throw statusFailure(upstream.statusCode, upstream.body.toString("utf8"), context.adapter);
    // Set by the sink's `end` (TypeScript cannot see a callback assign it).
    const done = ended as AttemptOutcome | null;
    if (done) return done.estimated ? await settled(done.status, done.reason) : done;
    throw new AttemptFailure("the upstream closed the stream before the first event", { retryable: true, status: upstream.statusCode });
  } catch (error) {
    const ender = terminated as GatewayError | null;
    if (ender !== null) {
      const billed = await settled("error", ender.message);
      if (committed) return billed;
      // Before the first byte: the client gets the refusal as its JSON error.
      throw new AttemptFailure(ender.message, { retryable: false, clientError: ender, outcome: billed, cause: error, attemptCause: "client_aborted" });
    }
    if (context.clientConnection.gone) return await settled("client_aborted");
    if (!committed) throw transportFailure(error, attempt);
    const failure = transportFailure(error, attempt);
    const message = failure.timeout ? "The upstream stopped sending mid-stream." : "The upstream connection failed mid-stream.";
    // The client gets its final error event now; the bill waits for the exact count.
    if (!response.destroyed) response.end(stream.error(message));
    return await settled("error", failure.message);
  } finally {
    clearTimeout(timer);
    context.clientConnection.unwatch();
    if (running !== undefined) running.attempt = null;
  }
}
