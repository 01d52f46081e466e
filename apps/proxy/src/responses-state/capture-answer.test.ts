import { PassThrough } from "node:stream";
import { IncomingMessage, ServerResponse } from "node:http";
import { Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { captureAnswer } from "./capture-answer.ts";

/** A real ServerResponse writing into a sink socket. */
function response(): ServerResponse {
  const socket = new Socket();
  const sink = new PassThrough();
  sink.resume();
  Object.assign(socket, { write: sink.write.bind(sink), end: sink.end.bind(sink), writable: true });
  const answer = new ServerResponse(new IncomingMessage(socket));
  answer.assignSocket(socket);
  return answer;
}

const finished = { id: "resp_1", object: "response", status: "completed", output: [{ type: "message" }] };
const event = (type: string, data: unknown) => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;

describe("captureAnswer", () => {
  it("a stream: the response.completed event's response, found across chunk boundaries and multi-byte splits", () => {
    const seen: unknown[] = [];
    const res = response();
    captureAnswer(res, true, (answer) => seen.push(answer));
    res.writeHead(200);
    const text = event("response.created", { type: "response.created", response: { ...finished, status: "in_progress" } }) + event("response.completed", { type: "response.completed", response: { ...finished, note: "é" } });
    const bytes = Buffer.from(text);
    const cut = bytes.indexOf(Buffer.from("é")) + 1;
    res.write(bytes.subarray(0, 17));
    res.write(bytes.subarray(17, cut));
    res.end(bytes.subarray(cut));
    expect(seen).toEqual([{ ...finished, note: "é" }]);
  });

  it("a stream that fails or is cut stores nothing", () => {
    const seen: unknown[] = [];
    const res = response();
    captureAnswer(res, true, (answer) => seen.push(answer));
    res.write(event("response.failed", { type: "response.failed", response: { ...finished, status: "failed" } }));
    res.end(event("error", { type: "error", message: "x" }));
    expect(seen).toEqual([]);
  });

  it("JSON: the body of a 200 once it has ended; an error answer or a non-response body is not", () => {
    const seen: unknown[] = [];
    const ok = response();
    captureAnswer(ok, false, (answer) => seen.push(answer));
    ok.writeHead(200);
    ok.end(Buffer.from(JSON.stringify(finished)));
    const refused = response();
    captureAnswer(refused, false, (answer) => seen.push(answer));
    refused.writeHead(400);
    refused.end(JSON.stringify(finished));
    const other = response();
    captureAnswer(other, false, (answer) => seen.push(answer));
    other.writeHead(200);
    other.end(JSON.stringify({ object: "list" }));
    expect(seen).toEqual([finished]);
  });
});
