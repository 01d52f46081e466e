import type { OutgoingHttpHeaders, ServerResponse } from "node:http";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import type { ResponseStateFields } from "./stateful-request.ts";

/** Stream events that carry the `response` object (OpenAI's `ResponseStreamEvent` union). */
const CARRY_RESPONSE = new Set(["response.created", "response.queued", "response.in_progress", "response.completed", "response.incomplete", "response.failed"]);
/** Those whose `response` is a finished response worth storing (not `response.failed`). */
const FINISHED = new Set(["response.completed", "response.incomplete"]);
/** Only a block holding this key is parsed: deltas, the bulk of a stream, pass as their bytes. */
const RESPONSE_KEY = Buffer.from('"response":');
const LF = 0x0a;
const CR = 0x0d;
const NOTHING = Buffer.alloc(0);

type Answer = Record<string, unknown>;
type Finished = ((answer: Answer) => void) | null;

/**
 * The answer the client receives for a Responses request whose state the gateway handles
 * (stateful-request.ts): every `response` object in it (the JSON body; in a stream, that of
 * `response.created`, `response.in_progress`, `response.completed`...) gets `fields`, the request's
 * `store`, `previous_response_id` and `conversation` as the API shows them (the upstream was asked
 * statelessly, so its own say `store: false` and no previous id). Then the finished response is
 * handed to `finished` once (never for an error answer or a failed or cut stream), to be stored as
 * the client saw it.
 *
 * The relay and its translators stay as they are: this wraps the relay's writes to this one
 * response, whatever upstream served it and after whatever failover (only the attempt that answered
 * writes to the client). A stream is cut into blocks at its blank lines; only a block holding a
 * `"response":` key is parsed and written again, every other one passes as its bytes. A JSON 200 is
 * held until its end, then written with its new length. `finished` runs in the tick the last byte
 * is written, so the save starts before the client can send its next request.
 */
export function captureAnswer(response: ServerResponse, stream: boolean, fields: ResponseStateFields, finished: Finished): void {
  if (stream) captureStream(response, fields, finished);
  else captureJson(response, fields, finished);
}

/** `answer` with the state fields, when it is a response object; else null. */
function withFields(answer: unknown, fields: ResponseStateFields): Answer | null {
  if (answer === null || typeof answer !== "object" || Array.isArray(answer)) return null;
  const record = answer as Answer;
  return record.object === "response" ? Object.assign(record, fields) : null;
}

function isFinished(answer: Answer): boolean {
  return answer.status === "completed" || answer.status === "incomplete";
}

function asBuffer(chunk: unknown, encoding: unknown): Buffer {
  if (chunk === undefined || chunk === null || typeof chunk === "function") return NOTHING;
  if (typeof chunk === "string") return Buffer.from(chunk, typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8");
  if (chunk instanceof Uint8Array) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  return NOTHING;
}

function captureStream(response: ServerResponse, fields: ResponseStateFields, finished: Finished): void {
  const write = response.write;
  const end = response.end;
  let done = false;
  let pending: Buffer = NOTHING;
  // One parser for the blocks that are parsed: each is fed whole, its blank line included.
  let parsed: EventSourceMessage | null = null;
  const parser = createParser({ onEvent: (event) => (parsed = event) });

  /** One whole block, as the client gets it: its own bytes, or its frame with the fields. */
  const block = (bytes: Buffer): Buffer => {
    if (bytes.indexOf(RESPONSE_KEY) === -1) return bytes;
    parsed = null;
    parser.feed(bytes.toString("utf8"));
    const event = parsed as EventSourceMessage | null;
    if (event === null) return bytes;
    let data: { type?: unknown; response?: unknown };
    try {
      data = JSON.parse(event.data) as typeof data;
    } catch {
      return bytes;
    }
    if (typeof data.type !== "string" || !CARRY_RESPONSE.has(data.type)) return bytes;
    const answer = withFields(data.response, fields);
    if (answer === null) return bytes;
    if (!done && FINISHED.has(data.type) && isFinished(answer)) {
      done = true;
      finished?.(answer);
    }
    const name = event.event === undefined ? "" : `event: ${event.event}\n`;
    return Buffer.from(`${name}data: ${JSON.stringify(data)}\n\n`);
  };

  /** The whole blocks of what came so far; the bytes after the last blank line wait for the rest. */
  const blocks = (chunk: Buffer): Buffer => {
    const bytes = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    const out: Buffer[] = [];
    let start = 0;
    for (let lf = bytes.indexOf(LF); lf !== -1; lf = bytes.indexOf(LF, lf + 1)) {
      // A blank line: LF LF, or CRLF CRLF (LF CR LF).
      const after = bytes[lf + 1] === LF ? lf + 2 : bytes[lf + 1] === CR && bytes[lf + 2] === LF ? lf + 3 : -1;
      if (after === -1) continue;
      out.push(block(bytes.subarray(start, after)));
      start = after;
      lf = after - 1;
    }
    pending = start === bytes.length ? NOTHING : bytes.subarray(start);
    return out.length === 1 ? out[0]! : Buffer.concat(out);
  };

  // Own properties on this one response only; every other request's response is untouched.
  response.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
    if (this.statusCode !== 200) return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
    const out = blocks(asBuffer(chunk, rest[0]));
    if (out.length > 0) return (write as (...args: unknown[]) => boolean).call(this, out, ...rest);
    // Only part of a block so far: nothing to write yet.
    const callback = rest.find((arg) => typeof arg === "function") as (() => void) | undefined;
    if (callback) process.nextTick(callback);
    return !this.writableNeedDrain;
  } as ServerResponse["write"];
  response.end = function (this: ServerResponse, chunk?: unknown, ...rest: unknown[]) {
    if (this.statusCode !== 200) return (end as (...args: unknown[]) => ServerResponse).call(this, chunk, ...rest);
    const out = Buffer.concat([blocks(asBuffer(chunk, rest[0])), pending]);
    pending = NOTHING;
    return (end as (...args: unknown[]) => ServerResponse).call(this, out.length > 0 ? out : undefined, ...callbacksOf(chunk, rest));
  } as ServerResponse["end"];
}

/** The callback among `end`'s arguments (the chunk's encoding is spent once the chunk is bytes). */
function callbacksOf(chunk: unknown, rest: unknown[]): unknown[] {
  return [chunk, ...rest].filter((arg) => typeof arg === "function");
}

/** `headers` with `content-length` (in any case) set to `length`. */
function withLength(headers: unknown, length: number): unknown {
  if (headers === null || typeof headers !== "object" || Array.isArray(headers)) return headers;
  const named = Object.keys(headers).find((name) => name.toLowerCase() === "content-length");
  return named === undefined ? headers : { ...(headers as OutgoingHttpHeaders), [named]: length };
}

function captureJson(response: ServerResponse, fields: ResponseStateFields, finished: Finished): void {
  const writeHead = response.writeHead;
  const write = response.write;
  const end = response.end;
  // A 200's head, held until the body's end: its content-length is the rewritten body's.
  let head: unknown[] | null = null;
  const chunks: Buffer[] = [];
  const sendHead = (self: ServerResponse, length: number | null) => {
    const held = head!;
    head = null;
    if (length !== null) {
      const last = held.length - 1;
      if (last >= 1) held[last] = withLength(held[last], length);
      if (self.getHeader("content-length") !== undefined) self.setHeader("content-length", length);
    }
    (writeHead as (...args: unknown[]) => ServerResponse).apply(self, held);
  };
  response.writeHead = function (this: ServerResponse, statusCode: number, ...rest: unknown[]) {
    if (statusCode !== 200) return (writeHead as (...args: unknown[]) => ServerResponse).call(this, statusCode, ...rest);
    head = [statusCode, ...rest];
    return this;
  } as ServerResponse["writeHead"];
  response.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
    // Written in pieces: the head goes as it was, the body as it comes (the stored copy still gets the fields).
    if (head !== null) sendHead(this, null);
    if (this.statusCode === 200) chunks.push(asBuffer(chunk, rest[0]));
    return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
  } as ServerResponse["write"];
  response.end = function (this: ServerResponse, chunk?: unknown, ...rest: unknown[]) {
    const callEnd = (body: unknown, args: unknown[]) => (end as (...args: unknown[]) => ServerResponse).call(this, body, ...args);
    if (this.statusCode !== 200) return callEnd(chunk, rest);
    const whole = head !== null;
    chunks.push(asBuffer(chunk, rest[0]));
    let answer: Answer | null = null;
    try {
      answer = withFields(JSON.parse(Buffer.concat(chunks).toString("utf8")), fields);
    } catch {
      // Not JSON: passed as it came, nothing to store.
    }
    if (answer !== null && isFinished(answer)) finished?.(answer);
    if (!whole) return callEnd(chunk, rest);
    const body = answer === null ? Buffer.concat(chunks) : Buffer.from(JSON.stringify(answer));
    sendHead(this, body.length);
    return callEnd(body, callbacksOf(chunk, rest));
  } as ServerResponse["end"];
}
