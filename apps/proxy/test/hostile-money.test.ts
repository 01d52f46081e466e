// Issue 35, contract section 14: money cannot leak. Generated output-limit fields (huge, negative,
// fractional, 1e15, strings, two at once), every client shape on a same-shape and a translated
// model (and an alias), up to 100 requests at once over three proxy processes, against the real
// stack. Whatever a client sends: a success or a 4xx/429/503 envelope, never a 500; a key's ledger
// spend stays within its quota or budget but for the input estimate's error; TPM and RPM hold.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { awayFromMinuteBoundary, everyReplicaAnswers, MODEL_MAX_OUTPUT, PRICES, startHostileStack, type HostileModel, type HostileStack, type LedgerRow } from "./hostile-stack.ts";
import { CLIENT_SHAPES, envelopeOf, isSameShape, READ_FIELDS, requestBody, send, SHAPE_PATH, shapeHeaders, type ClientShape, type OutputField, type Reply } from "./hostile-requests.ts";

let stack: HostileStack;
beforeAll(async () => {
  stack = await startHostileStack({ replicas: 3 });
}, 90_000);
afterAll(async () => stack?.close());

/** Raw JSON literals for an output-limit field. */
const literal = fc.oneof(
  { weight: 10, arbitrary: fc.integer({ min: 1, max: 400 }).map(String) },
  { weight: 3, arbitrary: fc.constantFrom("1000", "1200", "1201", "4096", "32000", "1000000000000000", "1e15", "9007199254740993", "9223372036854775807", "1e309") },
  { weight: 1, arbitrary: fc.constantFrom("0", "-1", "-1e15", "0.5", "1.5", "2000.7", '"100"', '"1e15"', "true", "null", "[]", "{}") },
);

interface Generated {
  shape: ClientShape;
  model: HostileModel;
  alias: boolean;
  stream: boolean;
  fields: Partial<Record<OutputField, string>>;
  /** Words the simulator answers with (it stops earlier at the bound it receives). */
  words: number;
}

const generated: fc.Arbitrary<Generated> = fc
  .record({
    shape: fc.constantFrom(...CLIENT_SHAPES),
    model: fc.constantFrom<HostileModel>("gpt-h", "claude-h"),
    alias: fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    stream: fc.boolean(),
    fields: fc.record({ max_tokens: literal, max_completion_tokens: literal, max_output_tokens: literal }, { requiredKeys: [] }),
    /** Fields another shape defines are kept in one request of four (a translator may refuse them). */
    foreign: fc.integer({ min: 0, max: 3 }),
    words: fc.integer({ min: 1, max: 1500 }),
  })
  .map(({ foreign, fields, ...request }) => ({
    ...request,
    fields: foreign === 0 ? fields : Object.fromEntries(Object.entries(fields).filter(([name]) => READ_FIELDS[request.shape].includes(name))),
  }));

type Kind = "valid" | "over" | "huge" | "invalid" | "null";

/** What a field's value is, for a model whose maximum output is `max`. */
function kindOf(raw: string, max: number): Kind {
  const value = JSON.parse(raw) as unknown; // 1e309 parses to Infinity, as the gateway sees it
  if (value === null) return "null";
  if (typeof value !== "number" || !Number.isFinite(value) || !Number.isInteger(value) || value < 1) return "invalid";
  if (!Number.isSafeInteger(value)) return "huge";
  return value > max ? "over" : "valid";
}

interface Expectation {
  /** Fields a 400 may name. */
  blamable: Set<string>;
  /** The request must be a 400 naming one of `blamable`. */
  must400: boolean;
  /** The bound is above the model's maximum on a model the client reached across shapes or by alias: lowered, listed, never a 400. */
  lowered: OutputField | null;
}

function expectationOf(request: Generated): Expectation {
  const max = MODEL_MAX_OUTPUT[request.model];
  const direct = isSameShape(request.shape, request.model) && !request.alias;
  const read = READ_FIELDS[request.shape];
  const present = Object.entries(request.fields) as [OutputField, string][];
  const kinds = new Map(present.map(([name, raw]) => [name, kindOf(raw, max)]));
  const readPresent = present.filter(([name]) => read.includes(name));
  // A 400 may name any field the client's shape does not define (a translator may refuse what the
  // other side cannot take), or a field whose value is not a valid bound.
  const blamable = new Set<string>(present.filter(([name]) => !read.includes(name) || kinds.get(name) !== "valid").map(([name]) => name));
  // A messages request without max_tokens: the native API asks for it; the gateway may too.
  if (request.shape === "messages" && readPresent.length === 0) blamable.add("max_tokens");
  const readKinds = readPresent.map(([name]) => kinds.get(name)!);
  const single = readPresent.length === 1 ? readPresent[0]![0] : null;
  const singleKind = single ? kinds.get(single)! : null;
  const must400 = readKinds.includes("invalid") || (direct && (singleKind === "over" || singleKind === "huge"));
  const lowered = !direct && singleKind === "over" && present.length === 1 ? single : null;
  return { blamable, must400, lowered };
}

const fieldsText = (request: Generated) => JSON.stringify({ shape: request.shape, model: request.model, alias: request.alias, fields: request.fields });

/** The per-reply invariants: an answer (never a reset), never a 5xx but 503, every refusal an envelope that names what it should. */
function checkReply(request: Generated, reply: Reply): void {
  const context = `${fieldsText(request)} -> ${reply.status} ${reply.text.slice(0, 300)}`;
  expect(reply.error, context).toBeNull();
  expect([200, 400, 429, 503], context).toContain(reply.status);
  const expected = expectationOf(request);
  if (reply.status !== 200) {
    const envelope = envelopeOf(reply);
    expect(envelope, context).not.toBeNull();
    if (reply.status === 429) expect(["insufficient_quota", "budget_exceeded", "rate_limit_exceeded"], context).toContain(envelope!.code);
    if (reply.status === 400) {
      expect(envelope!.type, context).toBe("invalid_request_error");
      expect([...expected.blamable], context).toContain(envelope!.param);
    }
  }
  if (expected.must400) expect(reply.status, context).toBe(400);
  if (expected.lowered) {
    expect(reply.status, context).not.toBe(400);
    if (reply.status === 200) expect(String(reply.headers["x-gateway-dropped-params"] ?? ""), context).toContain(expected.lowered);
  }
}

async function sendAll(key: string, requests: Generated[]): Promise<Reply[]> {
  return Promise.all(
    requests.map((request, index) => {
      const replica = stack.replicas[index % stack.replicas.length]!;
      const model = request.alias ? `${request.model}-alias` : request.model;
      const body = requestBody(request.shape, model, `hostile ${index} #sim:chunks=${request.words}`, request.stream, request.fields);
      return send(replica.url, SHAPE_PATH[request.shape], shapeHeaders(request.shape, key), body);
    }),
  );
}

const requestIds = (replies: Reply[]) => replies.filter((reply) => reply.status === 200).map((reply) => String(reply.headers["x-request-id"]));
const inputNanoPerToken = (model: string) => BigInt(PRICES[model as HostileModel].input * 1000);

/** Every admitted (200) request has its one ledger row; the rows are the admitted requests and those refused only after admission. */
async function settledLedger(keyId: string, replies: Reply[]): Promise<LedgerRow[]> {
  const admitted = requestIds(replies);
  const rows = await stack.ledgerWith(keyId, admitted);
  const ids = new Set(rows.map((row) => row.requestId));
  expect(admitted.filter((id) => !ids.has(id))).toEqual([]);
  expect(rows.length).toBeLessThanOrEqual(replies.length);
  return rows;
}

describe("hostile output-limit fields, up to 100 at once over three replicas", () => {
  it("never a 500, every refusal names the field, and a key's spend stays within its quota or budget", async () => {
    const tally: Record<string, number> = {};
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("quota", "budget"),
        fc.constantFrom("0.01", "0.05", "0.2"),
        fc.array(generated, { minLength: 1, maxLength: 100, size: "max" }),
        async (limit, usd, requests) => {
          const minted = await stack.mintKey(limit === "quota" ? { quota: usd } : { budget: { limit: usd, period: "day" } });
          const replies = await sendAll(minted.key, requests);
          requests.forEach((request, index) => checkReply(request, replies[index]!));
          for (const reply of replies) tally[`${reply.status} ${envelopeOf(reply)?.code ?? ""}`.trim()] = (tally[`${reply.status} ${envelopeOf(reply)?.code ?? ""}`.trim()] ?? 0) + 1;
          const rows = await settledLedger(minted.id, replies);
          const spent = rows.reduce((sum, row) => sum + row.costNano, 0n);
          // The tolerance: the input estimate's error. An estimate is never below zero, so the input
          // side of every admitted row bounds it (the prompts here are ~10 tokens: a few percent of the
          // limit); what the output bound reserves may never be exceeded.
          const tolerance = rows.reduce((sum, row) => sum + BigInt(row.inputTokens) * inputNanoPerToken(row.model), 0n);
          const limitNano = BigInt(Math.round(Number(usd) * 1e9));
          expect(spent, `${limit} ${usd} USD: spent ${spent} nano over ${rows.length} rows, tolerance ${tolerance}`).toBeLessThanOrEqual(limitNano + tolerance);
        },
      ),
      {
        numRuns: 30,
        // The two attacks, always tried: the overflowing bound beside a small one, and the
        // field the reservation read first beside the one the translation sends (60 at once each).
        examples: [
          ["quota", "0.01", Array.from({ length: 60 }, (): Generated => ({ shape: "chat", model: "claude-h", alias: false, stream: false, fields: { max_tokens: "1e15", max_completion_tokens: "500" }, words: 1500 }))],
          ["budget", "0.01", Array.from({ length: 60 }, (): Generated => ({ shape: "chat", model: "claude-h", alias: false, stream: true, fields: { max_tokens: "1", max_completion_tokens: "2000" }, words: 1500 }))],
          ["quota", "0.05", Array.from({ length: 60 }, (): Generated => ({ shape: "chat", model: "claude-h", alias: false, stream: false, fields: { max_tokens: "1", max_completion_tokens: "1000" }, words: 1500 }))],
        ],
      },
    );
    // The limits were reached (else the property says nothing about them), and requests were admitted.
    console.info(`hostile money: ${JSON.stringify(tally)}`);
    expect((tally["429 insufficient_quota"] ?? 0) + (tally["429 budget_exceeded"] ?? 0)).toBeGreaterThan(0);
    expect(tally["200"] ?? 0).toBeGreaterThan(0);
    expect(await everyReplicaAnswers(stack.replicas)).toBe(true);
  }, 120_000);

  it("TPM and RPM hold under concurrency over three replicas", async () => {
    let limited = 0;
    const valid = fc.record({
      shape: fc.constantFrom(...CLIENT_SHAPES),
      model: fc.constantFrom<HostileModel>("gpt-h", "claude-h"),
      stream: fc.boolean(),
      bound: fc.integer({ min: 1, max: 300 }),
      words: fc.integer({ min: 1, max: 400 }),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.record({ tpm: fc.integer({ min: 200, max: 3000 }), rpm: fc.constant(null) }), fc.record({ tpm: fc.constant(null), rpm: fc.integer({ min: 2, max: 40 }) })),
        fc.array(valid, { minLength: 10, maxLength: 100, size: "max" }),
        async (limits, requests) => {
          await awayFromMinuteBoundary(15_000);
          const minted = await stack.mintKey(limits);
          const generatedRequests: Generated[] = requests.map((request) => ({
            shape: request.shape,
            model: request.model,
            alias: false,
            stream: request.stream,
            fields: { [READ_FIELDS[request.shape].at(-1)!]: String(request.bound) },
            words: request.words,
          }));
          const replies = await sendAll(minted.key, generatedRequests);
          generatedRequests.forEach((request, index) => checkReply(request, replies[index]!));
          const rows = await settledLedger(minted.id, replies);
          // Rate windows are minutes: each minute's admitted requests (their rows, by start) hold on
          // their own, should a slow run cross into the next one.
          const windows = new Map<number, LedgerRow[]>();
          for (const row of rows) windows.set(Math.floor(row.startedAt.getTime() / 60_000), [...(windows.get(Math.floor(row.startedAt.getTime() / 60_000)) ?? []), row]);
          for (const [minute, inWindow] of windows) {
            if (limits.rpm !== null) {
              expect(inWindow.length, `rpm ${limits.rpm}, minute ${minute}`).toBeLessThanOrEqual(limits.rpm);
            } else {
              const tokens = inWindow.reduce((sum, row) => sum + row.inputTokens + row.outputTokens, 0);
              // As for money, the input estimate's error is bounded by the input side itself.
              const tolerance = inWindow.reduce((sum, row) => sum + row.inputTokens, 0);
              expect(tokens, `tpm ${limits.tpm}, minute ${minute}: ${inWindow.length} rows, ${tokens} tokens`).toBeLessThanOrEqual(limits.tpm! + tolerance);
            }
          }
          expect(replies.filter((reply) => reply.status === 429).every((reply) => envelopeOf(reply)?.code === "rate_limit_exceeded")).toBe(true);
          limited += replies.filter((reply) => reply.status === 429).length;
        },
      ),
      { numRuns: 10 },
    );
    expect(limited).toBeGreaterThan(0);
    expect(await everyReplicaAnswers(stack.replicas)).toBe(true);
  }, 150_000);
});
