import { EventStreamCodec } from "@smithy/eventstream-codec";
import { fromUtf8, toUtf8 } from "@smithy/util-utf8";
import { describe, expect, it } from "vitest";
import { CallAbort, type UpstreamCall } from "../../relay/upstream-client.ts";
import type { UpstreamRecord } from "@gateway/redis-store";
import { bedrockTransport } from "./bedrock.ts";
import { BedrockEventStream } from "./bedrock-event-stream.ts";

const codec = new EventStreamCodec(toUtf8, fromUtf8);
const header = (value: string) => ({ type: "string" as const, value });
const event = (type: string, payload: object) =>
  Buffer.from(codec.encode({ headers: { ":message-type": header("event"), ":event-type": header(type), ":content-type": header("application/json") }, body: fromUtf8(JSON.stringify(payload)) }));
const exception = (name: string, message: string) =>
  Buffer.from(codec.encode({ headers: { ":message-type": header("exception"), ":exception-type": header(name), ":content-type": header("application/json") }, body: fromUtf8(JSON.stringify({ message })) }));

function decode(bytes: Buffer, size: number): string {
  let text = "";
  const stream = new BedrockEventStream({ chunk: (piece) => ((text += piece.toString("utf8")), true) }, "converse");
  for (let at = 0; at < bytes.length; at += size) stream.chunk(bytes.subarray(at, at + size), () => undefined);
  stream.end();
  return text;
}

const dialect = { kind: "bedrock" as const, region: "us-east-1", accessKeyIdEnv: "CONVERSE_UNIT_ID", secretAccessKeyEnv: "CONVERSE_UNIT_SECRET", sessionTokenEnv: null, api: "converse" as const };
const call = (path: string, body: object): UpstreamCall => ({ upstream: { name: "u" } as UpstreamRecord, path, headers: { "x-request-id": "r1", "x-api-key": "never" }, body: JSON.stringify(body), abort: new CallAbort(), bodyTimeoutMs: 1000, errorBodyLimit: 1000 });

describe("ConverseStream through the bedrock transport", () => {
  const events: Array<[string, object]> = [
    ["messageStart", { role: "assistant" }],
    ["contentBlockDelta", { contentBlockIndex: 0, delta: { text: "Hi" }, p: "abc" }],
    ["contentBlockStop", { contentBlockIndex: 0 }],
    ["messageStop", { stopReason: "end_turn" }],
    ["metadata", { usage: { inputTokens: 3, outputTokens: 1, totalTokens: 4 }, metrics: { latencyMs: 5 } }],
  ];
  const bytes = Buffer.concat(events.map(([type, payload]) => event(type, payload)));

  it("each event is one SSE frame named by its type, its data the event under its name, however TCP cuts the messages", () => {
    const expected = events.map(([type, payload]) => `event: ${type}\ndata: {"${type}":${JSON.stringify(payload)}}\n\n`).join("");
    for (const size of [1, 9, 16, 100, bytes.length]) expect(decode(bytes, size)).toBe(expected);
  });

  it("an exception after the 200 is the error event the tracker fails over on", () => {
    const text = decode(Buffer.concat([event("messageStart", { role: "assistant" }), exception("throttlingException", "Too many requests")]), 5);
    expect(text).toContain('event: error\ndata: {"type":"error","error":{"type":"rate_limit_error","message":"throttlingException: Too many requests"}}');
  });

  it("signs the shape's own path and body (no model moved, no Anthropic headers), and refuses any other path", async () => {
    Object.assign(process.env, { CONVERSE_UNIT_ID: "AKIDEXAMPLE", CONVERSE_UNIT_SECRET: "secret" });
    const transport = bedrockTransport(dialect, "https://bedrock-runtime.us-east-1.amazonaws.com");
    const body = { messages: [{ role: "user", content: [{ text: "hi" }] }] };
    const prepared = await transport.prepare(call("/model/amazon.nova-pro-v1%3A0/converse-stream", body), true);
    expect(prepared.path).toBe("/model/amazon.nova-pro-v1%3A0/converse-stream");
    expect(JSON.parse(String(prepared.body))).toEqual(body);
    expect(prepared.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/us-east-1\/bedrock\/aws4_request/);
    expect(prepared.headers["x-request-id"]).toBe("r1");
    expect(prepared.headers["x-api-key"]).toBeUndefined();
    expect(prepared.headers["x-amzn-bedrock-accept"]).toBeUndefined();
    await expect(Promise.resolve().then(() => transport.prepare(call("/v1/messages", body), false))).rejects.toThrow(/Bedrock Converse has no \/v1\/messages/);
  });
});
