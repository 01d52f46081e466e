import { createServer, type Server } from "node:http";
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EventStreamCodec } from "@smithy/eventstream-codec";
import { fromUtf8, toUtf8 } from "@smithy/util-utf8";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { UpstreamRecord } from "@gateway/redis-store";
import { CallAbort, type UpstreamCall } from "../../relay/upstream-client.ts";
import { azureTransport } from "./azure.ts";
import { bedrockTransport, BEDROCK_ANTHROPIC_VERSION } from "./bedrock.ts";
import { BedrockEventStream } from "./bedrock-event-stream.ts";
import { ServiceAccountTokens } from "./vertex-token.ts";
import { compatDrops, namedUnknownField } from "./compat.ts";

const codec = new EventStreamCodec(toUtf8, fromUtf8);
const header = (value: string) => ({ type: "string" as const, value });
const chunk = (event: object) =>
  Buffer.from(codec.encode({ headers: { ":message-type": header("event"), ":event-type": header("chunk"), ":content-type": header("application/json") }, body: fromUtf8(JSON.stringify({ bytes: Buffer.from(JSON.stringify(event)).toString("base64") })) }));
const exception = (name: string, message: string) =>
  Buffer.from(codec.encode({ headers: { ":message-type": header("exception"), ":exception-type": header(name), ":content-type": header("application/json") }, body: fromUtf8(JSON.stringify({ message })) }));

/** Feeds `bytes` in pieces of `size` through a BedrockEventStream; returns the SSE text it handed on. */
function decode(bytes: Buffer, size: number): string {
  let text = "";
  const stream = new BedrockEventStream({ chunk: (piece) => ((text += piece.toString("utf8")), true) });
  for (let at = 0; at < bytes.length; at += size) stream.chunk(bytes.subarray(at, at + size), () => undefined);
  stream.end();
  return text;
}

const upstream = { name: "u", baseUrl: "https://res.openai.azure.com" } as UpstreamRecord;
const call = (path: string, body: object, headers: Record<string, string> = {}): UpstreamCall => ({ upstream, path, headers, body: JSON.stringify(body), abort: new CallAbort(), bodyTimeoutMs: 1000, errorBodyLimit: 1000 });

describe("Bedrock's event stream", () => {
  const events = [{ type: "message_start", message: { usage: { input_tokens: 3 } } }, { type: "content_block_delta", delta: { type: "text_delta", text: "Hi" } }, { type: "message_stop" }];
  const bytes = Buffer.concat(events.map(chunk));
  const expected = events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join("");

  it("becomes the Anthropic SSE events it carries, however TCP cuts the messages", () => {
    for (const size of [1, 7, 16, 100, bytes.length]) expect(decode(bytes, size)).toBe(expected);
  });

  it("an exception after the 200 is Anthropic's error event (the attempt fails over, or the stream ends in an error)", () => {
    const text = decode(Buffer.concat([chunk(events[0]!), exception("throttlingException", "Too many requests, please wait before trying again.")]), 5);
    expect(text).toContain('event: error\ndata: {"type":"error","error":{"type":"rate_limit_error","message":"throttlingException: Too many requests, please wait before trying again."}}');
  });

  it("refuses a corrupted message (its CRC) and a stream that ends inside one", () => {
    const corrupt = Buffer.from(bytes);
    corrupt[20] = corrupt[20]! ^ 0xff;
    expect(() => decode(corrupt, 1000)).toThrow();
    expect(() => decode(bytes.subarray(0, bytes.length - 3), 1000)).toThrow(/ended inside a message/);
  });
});

describe("Azure's URL forms", () => {
  it("the deployment form with api-version, the key moved to api-key; resource-wide paths without a deployment", async () => {
    const transport = azureTransport({ kind: "azure", apiVersion: "2024-10-21", auth: "api-key" });
    const prepared = await transport.prepare(call("/chat/completions", { model: "my deployment" }, { authorization: "Bearer k1", "x-request-id": "r" }), false);
    expect(prepared.path).toBe("/openai/deployments/my%20deployment/chat/completions?api-version=2024-10-21");
    expect(prepared.headers).toEqual({ "api-key": "k1", "x-request-id": "r" });
    expect((await transport.prepare(call("/responses", { model: "d" }), false)).path).toBe("/openai/responses?api-version=2024-10-21");
  });

  it("the v1 path, an Entra token as the bearer", async () => {
    const prepared = await azureTransport({ kind: "azure", apiVersion: null, auth: "bearer" }).prepare(call("/chat/completions", { model: "d" }, { authorization: "Bearer entra" }), true);
    expect(prepared).toMatchObject({ path: "/openai/v1/chat/completions", headers: { authorization: "Bearer entra" } });
  });
});

describe("Bedrock's InvokeModel call", () => {
  it("moves the model into the path and the betas into the body, drops stream, and signs with SigV4", async () => {
    process.env.UNIT_AWS_ID = "AKIAUNIT";
    process.env.UNIT_AWS_SECRET = "unit-secret";
    const transport = bedrockTransport({ kind: "bedrock", region: "eu-west-1", accessKeyIdEnv: "UNIT_AWS_ID", secretAccessKeyEnv: "UNIT_AWS_SECRET", sessionTokenEnv: null }, "https://bedrock-runtime.eu-west-1.amazonaws.com");
    const prepared = await transport.prepare(call("/v1/messages", { model: "anthropic.claude-v2:1", stream: true, max_tokens: 5, messages: [] }, { "x-api-key": "never", "anthropic-version": "2023-06-01", "anthropic-beta": "a-1, b-2", "x-request-id": "r" }), true);
    expect(prepared.path).toBe("/model/anthropic.claude-v2%3A1/invoke-with-response-stream");
    expect(JSON.parse(prepared.body as string)).toEqual({ max_tokens: 5, messages: [], anthropic_version: BEDROCK_ANTHROPIC_VERSION, anthropic_beta: ["a-1", "b-2"] });
    expect(prepared.headers["x-api-key"]).toBeUndefined();
    expect(prepared.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIAUNIT\/\d{8}\/eu-west-1\/bedrock\/aws4_request, SignedHeaders=accept;content-type;host;x-amz-content-sha256;x-amz-date;x-amzn-bedrock-accept, Signature=[0-9a-f]{64}$/);
    expect(prepared.headers["x-request-id"]).toBe("r");
  });

  it("without its credentials in the environment the call fails (naming the variables, never a value)", async () => {
    const transport = bedrockTransport({ kind: "bedrock", region: "us-east-1", accessKeyIdEnv: "UNSET_AWS_ID", secretAccessKeyEnv: "UNSET_AWS_SECRET", sessionTokenEnv: null }, "https://bedrock-runtime.us-east-1.amazonaws.com");
    await expect(transport.prepare(call("/v1/messages", { model: "m", max_tokens: 1, messages: [] }), false)).rejects.toThrow("the Bedrock credentials are not set (UNSET_AWS_ID, UNSET_AWS_SECRET)");
  });
});

describe("Vertex's access tokens", () => {
  let server: Server;
  let issued = 0;
  let lifetime = 3600;
  let refuse = false;
  let keyFile = "";
  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        issued += 1;
        res.writeHead(refuse ? 400 : 200, { "content-type": "application/json" });
        res.end(JSON.stringify(refuse ? { error: "invalid_grant" } : { access_token: `token-${issued}`, expires_in: lifetime, token_type: "Bearer" }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048, privateKeyEncoding: { type: "pkcs8", format: "pem" }, publicKeyEncoding: { type: "spki", format: "pem" } });
    keyFile = join(mkdtempSync(join(tmpdir(), "sa-")), "key.json");
    writeFileSync(keyFile, JSON.stringify({ type: "service_account", client_email: "a@p.iam.gserviceaccount.com", private_key: privateKey, token_uri: `http://127.0.0.1:${port}/token` }));
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("one fetch for concurrent callers; reused until five minutes before expiry; a 401's invalidate fetches anew", async () => {
    issued = 0;
    lifetime = 600;
    const tokens = new ServiceAccountTokens(keyFile);
    const now = Date.now();
    expect(await Promise.all([tokens.get(now), tokens.get(now), tokens.get(now)])).toEqual(["token-1", "token-1", "token-1"]);
    expect(await tokens.get(now + 290_000)).toBe("token-1");
    expect(await tokens.get(now + 310_000)).toBe("token-2");
    tokens.invalidate();
    expect(await tokens.get()).toBe("token-3");
    expect(issued).toBe(3);
  });

  it("a refused grant or a missing key file is an error that shows neither the key nor a token", async () => {
    refuse = true;
    try {
      const error = await new ServiceAccountTokens(keyFile).get().catch((caught: Error) => caught);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toBe("the token endpoint answered 400");
    } finally {
      refuse = false;
    }
    await expect(new ServiceAccountTokens(join(tmpdir(), "no-such-key.json")).get()).rejects.toThrow("the service-account key file cannot be read (ENOENT)");
  });
});

describe("compat profiles", () => {
  const compat = (profile: "groq" | "mistral" | "deepseek") => ({ name: "c", shape: "openai", dialect: { kind: "compat", profile } }) as UpstreamRecord;
  const request = (body: Record<string, unknown>) => ({ body: { model: "m", messages: [], ...body }, model: "m", stream: false });

  it("drop the profile's fields for the endpoint the upstream reads, the same request when none is present", () => {
    const plain = request({ temperature: 1 });
    expect(compatDrops(compat("groq"), "chat.completions", plain).request).toBe(plain);
    const dropped = compatDrops(compat("deepseek"), "chat.completions", request({ store: true, reasoning_effort: "high", temperature: 1 }));
    expect(dropped.dropped).toEqual(["store", "reasoning_effort"]);
    expect(dropped.request.body).toEqual({ model: "m", messages: [], temperature: 1 });
    expect(compatDrops(compat("mistral"), "messages", request({ store: true })).dropped).toEqual([]);
    expect(compatDrops({ ...compat("groq"), dialect: null }, "chat.completions", request({ store: true })).dropped).toEqual([]);
  });

  it("read the field a vendor's 400 names, as each words it", () => {
    expect(namedUnknownField("property 'stream_options' is unsupported, did you mean 'stream'?")).toBe("stream_options");
    expect(namedUnknownField("Unrecognized request argument supplied: foo")).toBe("foo");
    expect(namedUnknownField("unknown field `bar`, expected one of `model`, `messages`")).toBe("bar");
    expect(namedUnknownField('{"object":"error","message":{"detail":[{"type":"extra_forbidden","loc":["body","baz"],"msg":"Extra inputs are not permitted"}]}}')).toBe("baz");
    expect(namedUnknownField('{"detail":[{"loc":["body","qux"],"msg":"Extra inputs are not permitted","type":"extra_forbidden"}]}')).toBe("qux");
    expect(namedUnknownField("max_tokens must be at most 4096")).toBeNull();
  });
});
