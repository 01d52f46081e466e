import type { IncomingMessage } from "node:http";

/** Why a relayed body stopped before its end, when the relay caused it (null: it did not). */
export type BodyStop = "too_large" | "timed_out" | null;

export interface RelayedBody {
  /** What undici sends: pulled only once a connection to the control plane is free. */
  chunks: AsyncIterable<Buffer>;
  stopped(): BodyStop;
}

/** Ends the relayed body; the route answers from `stopped()`. */
class BodyStopped extends Error {}

/**
 * A client's request body as undici sends it on: pulled a chunk at a time, counted against `limit`,
 * and given at most `idleMs` between two chunks (a slow upload cannot hold a control-plane
 * connection). Nothing here runs until undici pulls, so a request still waiting for a pool
 * connection has no timer and no listener on the client's stream, and every failure (the client's
 * abort included) surfaces as a rejection undici catches: never an `error` event without a listener,
 * which would end the process.
 */
export function relayedBody(request: IncomingMessage, limit: number, idleMs: number): RelayedBody {
  let stop: BodyStop = null;
  async function* chunks(): AsyncGenerator<Buffer> {
    let size = 0;
    for (;;) {
      const chunk = await nextChunk(request, idleMs);
      if (chunk === null) return;
      if (chunk === "timed_out") {
        stop = "timed_out";
        throw new BodyStopped(`no request body bytes for ${idleMs} ms`);
      }
      size += chunk.length;
      if (size > limit) {
        stop = "too_large";
        throw new BodyStopped(`request body over ${limit} bytes`);
      }
      yield chunk;
    }
  }
  return { chunks: chunks(), stopped: () => stop };
}

/** The next chunk, null at the end, or "timed_out"; rejects when the client's stream fails. */
function nextChunk(request: IncomingMessage, idleMs: number): Promise<Buffer | null | "timed_out"> {
  const ready = request.read() as Buffer | null;
  if (ready !== null) return Promise.resolve(ready);
  if (request.readableEnded) return Promise.resolve(null);
  // Left before undici pulled: no event is coming any more.
  if (request.destroyed) return Promise.reject(new Error("the client closed its request before the body ended"));
  return new Promise((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      request.off("readable", onReadable);
      request.off("end", onEnd);
      request.off("error", onError);
      request.off("close", onClose);
    };
    const onReadable = () => {
      const chunk = request.read() as Buffer | null;
      if (chunk === null) return;
      done();
      resolve(chunk);
    };
    const onEnd = () => {
      done();
      resolve(null);
    };
    const onError = (error: Error) => {
      done();
      reject(error);
    };
    // A client that left: `close` without `end` (an `error` comes first when there is one).
    const onClose = () => {
      done();
      if (request.readableEnded) resolve(null);
      else reject(new Error("the client closed its request before the body ended"));
    };
    const timer = setTimeout(() => {
      done();
      resolve("timed_out");
    }, idleMs);
    request.on("readable", onReadable);
    request.on("end", onEnd);
    request.on("error", onError);
    request.on("close", onClose);
  });
}
