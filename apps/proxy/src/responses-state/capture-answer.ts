import type { ServerResponse } from "node:http";
import { createParser } from "eventsource-parser";

/** Stream events whose `response` is a finished response worth storing (not `response.failed`). */
const FINISHED = new Set(["response.completed", "response.incomplete"]);

/**
 * Watches what the relay writes to the client for the finished Responses `response` object, and
 * calls `finished` with it once (never for an error answer or a failed or cut stream). The relay
 * and its translators stay as they are: this reads the client's own bytes, whatever upstream
 * served them and after whatever failover (only the attempt that answered writes to the client).
 * A stream is read with the SSE parser; a JSON answer is parsed once it has ended with status 200.
 * `finished` runs in the tick the last byte is written, so the save starts before the client can
 * send its next request.
 */
export function captureAnswer(response: ServerResponse, stream: boolean, finished: (answer: Record<string, unknown>) => void): void {
  const write = response.write;
  const end = response.end;
  let done = false;
  const finish = (answer: unknown) => {
    if (done || answer === null || typeof answer !== "object") return;
    const record = answer as Record<string, unknown>;
    if (record.object !== "response" || (record.status !== "completed" && record.status !== "incomplete")) return;
    done = true;
    finished(record);
  };
  let feed: (chunk: unknown) => void;
  let close: () => void;
  if (stream) {
    const decoder = new TextDecoder();
    const parser = createParser({
      onEvent(event) {
        if (done) return;
        let data: { type?: unknown; response?: unknown };
        try {
          data = JSON.parse(event.data) as typeof data;
        } catch {
          return;
        }
        if (typeof data.type === "string" && FINISHED.has(data.type)) finish(data.response);
      },
    });
    feed = (chunk) => {
      if (typeof chunk === "string") parser.feed(chunk);
      else if (chunk instanceof Uint8Array) parser.feed(decoder.decode(chunk, { stream: true }));
    };
    close = () => parser.feed(decoder.decode() + "\n\n");
  } else {
    const chunks: Buffer[] = [];
    feed = (chunk) => {
      if (typeof chunk === "string") chunks.push(Buffer.from(chunk));
      else if (chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk));
    };
    close = () => {
      if (response.statusCode !== 200) return;
      try {
        finish(JSON.parse(Buffer.concat(chunks).toString("utf8")));
      } catch {
        // Not JSON: nothing to store.
      }
    };
  }
  // Own properties on this one response only; every other request's response is untouched.
  response.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
    if (!done) feed(chunk);
    return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
  } as ServerResponse["write"];
  response.end = function (this: ServerResponse, chunk?: unknown, ...rest: unknown[]) {
    if (!done && typeof chunk !== "function") {
      feed(chunk);
      close();
    }
    return (end as (...args: unknown[]) => ServerResponse).call(this, chunk, ...rest);
  } as ServerResponse["end"];
}
