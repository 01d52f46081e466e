import type { EventSourceMessage } from "eventsource-parser";
import type { ServerResponse } from "node:http";
import { AttemptFailure, FirstByteTimeout, statusFailure, transportFailure } from "./attempt-failure.ts";
import { upstreamCall, type AttemptContext, type AttemptOutcome } from "./attempt-context.ts";
import { clientStream } from "./client-stream.ts";
import { CallAbort } from "./upstream-client.ts";
import { ClientChunk, UpstreamEvents } from "./upstream-events.ts";
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
 */
export async function streamAttempt(context: AttemptContext): Promise<AttemptOutcome> {
  const { target, response } = context;
  const attempt = new CallAbort();
  const call = upstreamCall(context, attempt, { accept: "text/event-stream" });
  context.clientConnection.watch(attempt);
  const timer = setTimeout(() => attempt.abort(new FirstByteTimeout()), target.upstream.firstByteTimeoutMs);

  const stream = clientStream(context);
  const tracker = stream.tracker;
  let committed = false;
  let ttfbMs: number | null = null;
  // What the chunk's events give the client: the upstream's own bytes for those that reach it as
  // they came (same shape), frames for the rest.
  const out = new ClientChunk();
  let upstreamError: EventSourceMessage | null = null;
  const events = new UpstreamEvents((event, raw, bytes, start, end) => {
    if (tracker.isError(event)) {
      // Before the first byte an error event is a failed attempt; after it, the client gets it.
      if (!committed && out.empty) upstreamError = event;
      else out.frame(stream.upstreamError(event));
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

  const outcome = (status: AttemptOutcome["status"]): AttemptOutcome => {
    const usage = tracker.usage();
    return { status, usage: usage ?? estimateUsage(context.requestBytes, tracker.contentEvents), estimated: usage === null, ttfbMs };
  };
  const endWithError = (message: string): AttemptOutcome => {
    if (!response.destroyed) response.end(stream.error(message));
    return outcome("error");
  };

  // Each upstream chunk, in the tick it arrives: its events go out at once; a client that cannot
  // take more pauses the upstream until it drains (or leaves, which aborts the call).
  const relayChunk = (chunk: Buffer, resume: () => void): boolean => {
    writable = true;
    events.push(chunk);
    if (!committed) {
      if (upstreamError) throw new AttemptFailure("the upstream sent an error event before any content", { retryable: true });
      return true;
    }
    if (!out.empty) writable = writePieces(response, out.take());
    if (writable) return true;
    response.once("drain", resume);
    return false;
  };

  // A committed stream ends in the tick its upstream body ends, so the response's end leaves with
  // that tick's last events in one send. Before the first byte the outcome is the awaited call's
  // (a failure there moves on to the next target).
  let ended: AttemptOutcome | null = null;
  const endStream = (): void => {
    if (!committed) return;
    if (upstreamError) {
      response.end();
      ended = outcome("error");
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
    if (ended) return ended;
    throw new AttemptFailure("the upstream closed the stream before the first event", { retryable: true });
  } catch (error) {
    if (context.clientConnection.gone) return outcome("client_aborted");
    if (!committed) throw transportFailure(error, attempt);
    const failure = transportFailure(error, attempt);
    return endWithError(failure.timeout ? "The upstream stopped sending mid-stream." : "The upstream connection failed mid-stream.");
  } finally {
    clearTimeout(timer);
    context.clientConnection.unwatch();
  }
}
