// Contract section 14: revoking a key, disabling it, or rotating it without grace ends the key's
// open streams on every replica (the key-change event reaches each one): each stream gets its
// shape's final error event (`authentication_error`, `key_revoked` / `key_disabled`), its upstream
// call is aborted, and it is billed for what was relayed. A request still waiting for a JSON
// answer gets the 401 itself. A rotation with grace leaves the old secret's streams alone.
// Through the real stack: proxy processes, the vendor API, the billing worker and its ledger.
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHostileStack, type HostileModel, type HostileStack } from "./hostile-stack.ts";
import { CLIENT_SHAPES, requestBody, send, SHAPE_PATH, shapeHeaders, sseData, streamedText, wordCount, type ClientShape } from "./hostile-requests.ts";

const WORDS = 300;

let stack: HostileStack;
beforeAll(async () => {
  stack = await startHostileStack({ replicas: 2 });
}, 90_000);
afterAll(async () => stack?.close());

interface OpenStream {
  shape: ClientShape;
  requestId: string;
  /** Words read so far. */
  words(): number;
  /** The whole text once the proxy ended the response. */
  ended: Promise<string>;
}

/** Opens a slow stream (300 words, `delayMs` apart) and reads it as it comes. */
function openStream(baseUrl: string, shape: ClientShape, model: HostileModel, key: string, delayMs: number, tag: string): Promise<OpenStream> {
  const { hostname, port } = new URL(baseUrl);
  const body = requestBody(shape, model, `${tag} #sim:chunks=${WORDS} #sim:chunk_delay_ms=${delayMs}`, true, shape === "messages" ? { max_tokens: "1000" } : {});
  return new Promise((resolve, reject) => {
    const call = httpRequest({ hostname, port, method: "POST", path: SHAPE_PATH[shape], headers: shapeHeaders(shape, key), agent: false }, (response) => {
      if (response.statusCode !== 200) return reject(new Error(`${shape} answered ${response.statusCode}`));
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (text += chunk));
      const ended = new Promise<string>((done) => {
        response.on("end", () => done(text));
        response.on("error", () => done(text));
      });
      resolve({ shape, requestId: String(response.headers["x-request-id"]), words: () => wordCount(streamedText(shape, text)), ended });
    });
    call.on("error", reject);
    call.end(body);
  });
}

/** The error a stream's final event carries, in its shape's form (contract section 3), or null. */
function finalError(shape: ClientShape, text: string): { type: string | null; code: string | null } | null {
  const last = sseData(text).at(-1) as Record<string, unknown> | undefined;
  if (shape === "chat") {
    const error = last?.error as { type?: string; code?: string } | undefined;
    return error ? { type: error.type ?? null, code: error.code ?? null } : null;
  }
  if (last?.type !== "error") return null;
  if (shape === "messages") {
    const error = last.error as { type?: string; code?: string };
    return { type: error.type ?? null, code: error.code ?? null };
  }
  return { type: null, code: (last.code as string | undefined) ?? null };
}

async function vendorApi(method: string, path: string, body?: unknown): Promise<number> {
  const response = await fetch(`${stack.controlPlane.url}/api${path}`, {
    method,
    headers: { authorization: `Bearer ${stack.vendorToken}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  await response.arrayBuffer();
  return response.status;
}

/** Every client shape on both replicas, on a same-shape and a translated model each. */
async function openStreams(key: string, delayMs: number, tag: string): Promise<OpenStream[]> {
  const plans = stack.replicas.flatMap((replica, index) => CLIENT_SHAPES.map((shape) => ({ replica, shape, model: (index + CLIENT_SHAPES.indexOf(shape)) % 2 === 0 ? "gpt-h" : ("claude-h" as HostileModel) })));
  const streams = await Promise.all(plans.map((plan, index) => openStream(plan.replica.url, plan.shape, plan.model, key, delayMs, `${tag} ${index}`)));
  // Under way: some words reached every client before the key changes.
  await expect.poll(() => streams.every((stream) => stream.words() >= 3), { timeout: 10_000 }).toBe(true);
  return streams;
}

const changes = [
  { name: "revoked", change: (id: string) => vendorApi("DELETE", `/keys/${id}`), code: "key_revoked" },
  { name: "disabled", change: (id: string) => vendorApi("PATCH", `/keys/${id}`, { status: "disabled" }), code: "key_disabled" },
  { name: "rotated without grace", change: (id: string) => vendorApi("POST", `/keys/${id}/rotate`, { grace_seconds: 0 }), code: "key_revoked" },
] as const;

describe("a key's open streams", () => {
  for (const { name, change, code } of changes) {
    it(`end on every replica with the shape's authentication error when the key is ${name}, billed for what was relayed`, async () => {
      const key = await stack.mintKey();
      const streams = await openStreams(key.key, 40, name);
      // A JSON answer still awaited: the client gets the refusal itself.
      const waiting = send(stack.replicas[0]!.url, SHAPE_PATH.chat, shapeHeaders("chat", key.key), requestBody("chat", "gpt-h", `${name} json #sim:latency_ms=8000`, false));
      await expect.poll(() => stack.simulator.stats.requests.some((record) => record.body && JSON.stringify(record.body).includes(`${name} json`)), { timeout: 5_000 }).toBe(true);

      expect(await change(key.id)).toBe(200);
      const texts = await Promise.all(streams.map((stream) => stream.ended));
      const received = streams.map((stream, index) => wordCount(streamedText(stream.shape, texts[index]!)));
      for (const [index, stream] of streams.entries()) {
        const context = `${stream.shape} ${stream.requestId}: ${texts[index]!.slice(-300)}`;
        const error = finalError(stream.shape, texts[index]!);
        expect(error, context).not.toBeNull();
        expect(error!.code, context).toBe(code);
        if (stream.shape !== "responses") expect(error!.type, context).toBe("authentication_error");
        // Ended long before its 300 words (12 s of them); the upstream call was aborted.
        expect(received[index], context).toBeLessThan(WORDS);
        const upstream = stack.simulator.stats.requests.find((record) => record.headers["x-request-id"] === stream.requestId);
        await expect.poll(() => upstream?.outcome, { timeout: 5_000 }).toBe("aborted");
      }
      const refused = await waiting;
      expect(refused.status).toBe(401);
      expect(JSON.parse(refused.text)).toMatchObject({ error: { type: "authentication_error", code } });

      const rows = await stack.ledgerWith(key.id, [...streams.map((stream) => stream.requestId), String(refused.headers["x-request-id"])]);
      for (const [index, stream] of streams.entries()) {
        const mine = rows.filter((row) => row.requestId === stream.requestId);
        expect(mine, stream.requestId).toHaveLength(1);
        expect(mine[0]).toMatchObject({ status: "error", estimated: true });
        expect(mine[0]!.outputTokens).toBeGreaterThanOrEqual(received[index]!);
      }
      expect(rows.filter((row) => row.requestId === refused.headers["x-request-id"])).toHaveLength(1);
    }, 60_000);
  }

  it("run on when the key is rotated with grace: the old secret still holds", async () => {
    const key = await stack.mintKey();
    // 300 words 10 ms apart: about 3 s, long after the rotation's event reached both replicas.
    const streams = await openStreams(key.key, 10, "grace");
    expect(await vendorApi("POST", `/keys/${key.id}/rotate`, { grace_seconds: 3600 })).toBe(200);
    const texts = await Promise.all(streams.map((stream) => stream.ended));
    for (const [index, stream] of streams.entries()) {
      expect(finalError(stream.shape, texts[index]!), texts[index]!.slice(-300)).toBeNull();
      expect(wordCount(streamedText(stream.shape, texts[index]!))).toBe(WORDS);
    }
  }, 60_000);
});
