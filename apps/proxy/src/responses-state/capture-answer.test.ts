import { PassThrough } from "node:stream";
import { IncomingMessage, ServerResponse } from "node:http";
import { Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { captureAnswer } from "./capture-answer.ts";

/** A real ServerResponse writing into a sink socket; `sent()` is what reached the socket, head and body. */
function response(): { res: ServerResponse; sent: () => { head: string; body: string } } {
  const socket = new Socket();
  const sink = new PassThrough();
  const bytes: Buffer[] = [];
  sink.on("data", (chunk: Buffer) => bytes.push(chunk));
  Object.assign(socket, { write: sink.write.bind(sink), end: sink.end.bind(sink), writable: true });
  const res = new ServerResponse(new IncomingMessage(socket));
  res.assignSocket(socket);
  // The body as written, without chunked framing, so a test reads the bytes the relay wrote.
  res.useChunkedEncodingByDefault = false;
  res.sendDate = false;
  const sent = () => {
    const text = Buffer.concat(bytes).toString("utf8");
    const split = text.indexOf("\r\n\r\n");
    return { head: text.slice(0, split), body: text.slice(split + 4) };
  };
  return { res, sent };
}

const STATE = { store: true, previous_response_id: "resp_0", conversation: null };
const finished = { id: "resp_1", object: "response", status: "completed", store: false, previous_response_id: null, output: [{ type: "message" }] };
const event = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
const delta = event("response.output_text.delta", { delta: 'a "response": {} in text', item_id: "msg_1" });
const nothing = null;

/** Reads an SSE body back into its events' data. */
const dataOf = (body: string) => body.split(/\r?\n\r?\n/).filter((block) => block.length > 0).map((block) => JSON.parse(block.slice(block.indexOf("data: ") + 6)) as { type: string; response?: object });

describe("captureAnswer: a stream", () => {
  it("every response object the client gets carries the state fields; deltas pass as their bytes; the completed response is handed over once, as sent", () => {
    const seen: unknown[] = [];
    const { res, sent } = response();
    captureAnswer(res, true, STATE, (answer) => seen.push(answer));
    res.writeHead(200, { "content-type": "text/event-stream" });
    const text =
      event("response.created", { response: { ...finished, status: "in_progress" } }) +
      event("response.in_progress", { response: { ...finished, status: "in_progress" } }) +
      delta +
      event("response.completed", { response: { ...finished, note: "é" } });
    const bytes = Buffer.from(text);
    // Cut inside an event, and inside a multi-byte character of the last one.
    const cut = bytes.indexOf(Buffer.from("é")) + 1;
    res.write(bytes.subarray(0, 17));
    res.write(bytes.subarray(17, cut));
    res.end(bytes.subarray(cut));
    const { body } = sent();
    expect(body).toContain(delta);
    const events = dataOf(body);
    expect(events.map((data) => data.type)).toEqual(["response.created", "response.in_progress", "response.output_text.delta", "response.completed"]);
    for (const data of events.filter((each) => each.response)) expect(data.response).toMatchObject(STATE);
    expect(body).toContain("event: response.completed\ndata: ");
    expect(seen).toEqual([{ ...finished, note: "é", ...STATE }]);
  });

  it("CRLF blocks, and a conversation: the fields on response.created as well", () => {
    const { res, sent } = response();
    const state = { store: false, previous_response_id: nothing, conversation: { id: "conv_1" } };
    captureAnswer(res, true, state, null);
    res.writeHead(200);
    res.write(`event: response.created\r\ndata: ${JSON.stringify({ type: "response.created", response: { ...finished, status: "in_progress" } })}\r\n\r`);
    res.end("\n");
    expect(dataOf(sent().body)[0]!.response).toMatchObject(state);
  });

  it("a stream that fails: response.failed has the fields, nothing is stored; an error answer passes as it came", () => {
    const seen: unknown[] = [];
    const { res, sent } = response();
    captureAnswer(res, true, STATE, (answer) => seen.push(answer));
    res.writeHead(200);
    res.write(event("response.failed", { response: { ...finished, status: "failed" } }));
    res.end(event("error", { message: "x" }));
    expect(dataOf(sent().body)[0]!.response).toMatchObject({ status: "failed", ...STATE });
    expect(seen).toEqual([]);

    const refused = response();
    captureAnswer(refused.res, true, STATE, (answer) => seen.push(answer));
    refused.res.writeHead(400);
    const error = JSON.stringify({ error: { message: "no", response: finished } });
    refused.res.end(error);
    expect(refused.sent().body).toBe(error);
    expect(seen).toEqual([]);
  });
});

describe("captureAnswer: JSON", () => {
  it("a 200's response object gets the fields and its content-length follows; it is handed over as sent", () => {
    const seen: unknown[] = [];
    const { res, sent } = response();
    captureAnswer(res, false, STATE, (answer) => seen.push(answer));
    const original = Buffer.from(JSON.stringify(finished));
    res.writeHead(200, { "content-type": "application/json", "content-length": original.length });
    res.end(original);
    const { head, body } = sent();
    expect(JSON.parse(body)).toEqual({ ...finished, ...STATE });
    expect(head).toContain(`content-length: ${Buffer.byteLength(body)}`);
    expect(seen).toEqual([{ ...finished, ...STATE }]);
  });

  it("an error answer, or a body that is no response, passes byte for byte and is not stored", () => {
    const seen: unknown[] = [];
    for (const [status, text] of [
      [400, JSON.stringify(finished)],
      [200, JSON.stringify({ object: "list" })],
      [200, "not json"],
    ] as const) {
      const { res, sent } = response();
      captureAnswer(res, false, STATE, (answer) => seen.push(answer));
      res.writeHead(status, { "content-length": Buffer.byteLength(text) });
      res.end(text);
      expect(sent().body).toBe(text);
    }
    expect(seen).toEqual([]);
  });
});
