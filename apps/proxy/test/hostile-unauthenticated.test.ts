// Issue 35, contract section 14: bodies are read only after the credential is accepted. An
// unauthenticated (or wrongly keyed) client sending 10 MB bodies to any model route is answered
// 401 with the envelope and costs no parse: the proxy's own parse counter
// (`gateway_request_body_parses_total`, on its metrics port) does not move. Counted, not timed.
import { connect } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { counterValue, everyReplicaAnswers, metricsText, startHostileStack, type HostileStack, type Replica } from "./hostile-stack.ts";
import { envelopeOf, type Reply } from "./hostile-requests.ts";

const PARSES = "gateway_request_body_parses_total";
const TEN_MB = 10_000_000;

let stack: HostileStack;
let replica: Replica;
let validKey: string;
let revokedKey: string;
beforeAll(async () => {
  stack = await startHostileStack({ replicas: 1 });
  replica = stack.replicas[0]!;
  validKey = (await stack.mintKey()).key;
  const revoked = await stack.mintKey();
  await fetch(`${stack.controlPlane.url}/api/keys/${revoked.id}`, { method: "DELETE", headers: { authorization: `Bearer ${stack.vendorToken}` } });
  revokedKey = revoked.key;
}, 90_000);
afterAll(async () => stack?.close());

/** A 10 MB JSON body: a chat request whose content is one long string (valid, so a parse would succeed). */
function bigJsonBody(size: number): Buffer {
  const head = '{"model":"gpt-h","messages":[{"role":"user","content":"';
  const tail = '"}]}';
  return Buffer.concat([Buffer.from(head), Buffer.alloc(size - head.length - tail.length, "a"), Buffer.from(tail)]);
}
const BIG = bigJsonBody(TEN_MB);
const BROKEN = Buffer.concat([Buffer.from('{"model":"gpt-h","messages":[{"role":'), Buffer.alloc(TEN_MB - 40, "[")]);

/**
 * Sends `body` on a raw socket in 64 KiB writes (declared with content-length, or chunked) and
 * stops writing once answer bytes arrive: a server may answer before reading the body and close
 * the connection, which is its right (a write error then is not a failure); the answer is what
 * counts. The answer is read until the server closes or its content-length is in.
 */
function upload(path: string, headers: Record<string, string>, body: Buffer, chunked: boolean): Promise<Reply> {
  const { hostname, port } = new URL(replica.url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    const received: Buffer[] = [];
    let answered = false;
    let finished = false;
    const finish = (error: string | null) => {
      if (finished) return;
      finished = true;
      socket.destroy();
      resolve(parseAnswer(Buffer.concat(received), error));
    };
    socket.on("data", (chunk: Buffer) => {
      answered = true;
      received.push(chunk);
      if (completeAnswer(Buffer.concat(received))) finish(null);
    });
    socket.on("error", (error) => (answered ? finish(null) : finish(error.message)));
    socket.on("close", () => finish(answered ? null : "closed without an answer"));
    const head = [`POST ${path} HTTP/1.1`, `host: ${hostname}:${port}`, ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)];
    head.push(chunked ? "transfer-encoding: chunked" : `content-length: ${body.length}`);
    socket.write(`${head.join("\r\n")}\r\n\r\n`);
    let offset = 0;
    const writeMore = () => {
      while (offset < body.length && !answered && !socket.destroyed) {
        const next = body.subarray(offset, offset + 65_536);
        offset += next.length;
        const framed = chunked ? Buffer.concat([Buffer.from(`${next.length.toString(16)}\r\n`), next, Buffer.from("\r\n")]) : next;
        if (!socket.write(framed)) return void socket.once("drain", writeMore);
      }
      if (offset >= body.length && chunked && !socket.destroyed) socket.write("0\r\n\r\n");
    };
    writeMore();
  });
}

function splitAnswer(raw: Buffer): { head: string; body: Buffer } | null {
  const end = raw.indexOf("\r\n\r\n");
  return end === -1 ? null : { head: raw.subarray(0, end).toString("latin1"), body: raw.subarray(end + 4) };
}

function completeAnswer(raw: Buffer): boolean {
  const parts = splitAnswer(raw);
  const length = parts && /\r\ncontent-length: *(\d+)/i.exec(parts.head);
  return Boolean(parts && length && parts.body.length >= Number(length[1]));
}

function parseAnswer(raw: Buffer, error: string | null): Reply {
  const parts = splitAnswer(raw);
  if (!parts) return { status: 0, headers: {}, text: raw.toString("utf8"), error: error ?? "no complete answer head" };
  const [statusLine, ...lines] = parts.head.split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = parts.body;
  if (/chunked/i.test(headers["transfer-encoding"] ?? "")) {
    const pieces: Buffer[] = [];
    for (let at = 0; at < body.length; ) {
      const lineEnd = body.indexOf("\r\n", at);
      const size = parseInt(body.subarray(at, lineEnd).toString("latin1"), 16);
      if (!(size > 0)) break;
      pieces.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
      at = lineEnd + 2 + size + 2;
    }
    body = Buffer.concat(pieces);
  }
  return { status: Number(statusLine!.split(" ")[1]), headers, text: body.toString("utf8"), error };
}

const credentials = fc.constantFrom<[string, () => Record<string, string>]>(
  ["none", () => ({})],
  ["unknown bearer key", () => ({ authorization: "Bearer sk-hostile-not-a-key-0123456789abcdef" })],
  ["unknown x-api-key", () => ({ "x-api-key": "sk-hostile-not-a-key-0123456789abcdef" })],
  ["malformed authorization", () => ({ authorization: "Basic Zm9vOmJhcg==" })],
  ["empty bearer", () => ({ authorization: "Bearer " })],
  ["a vendor token on /v1", () => ({ authorization: `Bearer ${stack.vendorToken}` })],
  ["revoked key", () => ({ authorization: `Bearer ${revokedKey}` })],
);
const paths = fc.constantFrom("/v1/chat/completions", "/v1/messages", "/v1/responses", "/v1/messages/count_tokens", "/v1/embeddings", "/v1/images/generations", "/v1/redeem");

async function parses(): Promise<number> {
  return counterValue(await metricsText(replica), PARSES);
}

describe("unauthenticated 10 MB bodies", () => {
  it("the parse counter counts: an accepted key's request is parsed", async () => {
    const before = await parses();
    const answer = await fetch(`${replica.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${validKey}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-h", max_tokens: 4, messages: [{ role: "user", content: "hi" }] }),
    });
    expect(answer.status).toBe(200);
    expect(await parses()).toBeGreaterThan(before);
  });

  it("are never parsed, whatever the credential, route and framing, and are answered 401 with the envelope", async () => {
    await fc.assert(
      fc.asyncProperty(credentials, paths, fc.boolean(), fc.boolean(), fc.constantFrom("application/json", "text/plain"), async ([, headers], path, chunked, broken, contentType) => {
        const before = await parses();
        const reply = await upload(path, { ...headers(), "content-type": contentType, "anthropic-version": "2023-06-01" }, broken ? BROKEN : BIG, chunked);
        expect(reply.status, reply.error ?? reply.text.slice(0, 200)).toBe(401);
        expect(envelopeOf(reply)).toMatchObject({ type: "authentication_error" });
        expect(await parses()).toBe(before);
      }),
      { numRuns: 25 },
    );
    expect(await everyReplicaAnswers(stack.replicas)).toBe(true);
  }, 90_000);

  it("twenty at once are not parsed either", async () => {
    const before = await parses();
    const replies = await Promise.all(Array.from({ length: 20 }, (_, index) => upload("/v1/chat/completions", index % 2 ? {} : { authorization: "Bearer sk-wrong" }, BIG, index % 3 === 0)));
    expect(replies.map((reply) => reply.status)).toEqual(replies.map(() => 401));
    expect(await parses()).toBe(before);
  }, 60_000);
});
