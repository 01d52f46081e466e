import { randomUUID } from "node:crypto";
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import fc from "fast-check";
import { parseGatewayFile } from "@gateway/config";
import { createLogger } from "@gateway/logger";
import { createTestDatabase, resolveTestServices, type TestDatabase } from "@gateway/testing";
import { startSimulator, type Simulator } from "@gateway/simulator";
import { applyGatewayFile, createVendorToken, loadControlPlaneConfig, startControlPlane, type RunningControlPlane } from "@gateway/control-plane";
import { loadProxyConfig } from "../src/config.ts";
import { startProxy, type RunningProxy } from "../src/server.ts";
import { SIMULATOR_SECRET } from "./stack.ts";
import { geminiGatewayYaml } from "./gemini-stack.ts";
import { isGeminiPath } from "../src/routes/gemini.ts";
import { call, type Answer } from "./raw-http.ts";

// Contract section 13: no input makes any endpoint of the proxy or the control plane answer 500.
// Generated requests go to every route with a valid key or vendor token (and without one); with the
// simulator up and the stack healthy, no answer may be a 5xx, every error is the one envelope with
// the x-request-id it names, and the services still answer afterwards.
// Replay a failure with FUZZ_SEED=<seed>; FUZZ_RUNS scales the number of runs per route group and
// FUZZ_BUDGET_S bounds each group's time (a random seed each run, so runs add up to more inputs;
// `FUZZ_BUDGET_S=600 FUZZ_RUNS=100000` for a long local hunt). A group that sent fewer than
// MIN_RUNS requests within its budget fails: the bound may shorten the hunt, never empty it.
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
const RUNS = Number(process.env.FUZZ_RUNS ?? 7000);
const BUDGET_MS = Number(process.env.FUZZ_BUDGET_S ?? 12) * 1000;
const MIN_RUNS = Math.min(300, RUNS);
vi.setConfig({ testTimeout: BUDGET_MS + 120_000 });
const silent = createLogger({ name: "test", level: "silent" });
const INTERNAL = { INTERNAL_TOKEN: `internal-${randomUUID()}` };
let database: TestDatabase;
let simulator: Simulator;
let controlPlane: RunningControlPlane;
let proxy: RunningProxy;
let vendorToken: string;
/** The key the /v1 calls use; the /api routes (which may revoke or rotate) only get the victims' ids. */
let key: string;
/** A prepaid customer's key: its /v1/redeem calls reach the code claim (the other key has no customer). */
let customerKey: string;
const victimIds: string[] = [];
/** A stored response and a conversation of the fuzz key, so the state routes are reached with ids that exist. */
const stateIds: string[] = [];

/** The test gateway file with the Gemini models, every server option open to the vendor and no rate limit in the way. */
function fuzzGatewayYaml(simulatorUrl: string): string {
  return geminiGatewayYaml(simulatorUrl)
    .replace("rate_limits: { rpm: 600, tpm: 200000 }", "rate_limits: { rpm: 1000000, tpm: 1000000000 }")
    .replace("{ name: same-name, models: [gpt-same-name, claude-same-name, gpt-test] }", "{ name: same-name, models: [gpt-same-name, claude-same-name, gpt-test, claude-test, gemini-test, gemini3-test, gemini-embedding-test] }")
    .replace("server_options: [standard, premium] }", "server_options: [standard, premium, same-name, cross-shape] }");
}

beforeAll(async () => {
  const { redisUrl } = await resolveTestServices();
  const prefix = `test-${randomUUID().slice(0, 8)}`;
  database = await createTestDatabase();
  simulator = await startSimulator({ apiKey: SIMULATOR_SECRET });
  controlPlane = await startControlPlane(
    loadControlPlaneConfig({ DATABASE_URL: database.url, REDIS_URL: redisUrl, REDIS_PREFIX: prefix, PORT: "0", AUTH_FREE_FAILURES: "1000000", ...INTERNAL }),
    silent,
  );
  const { prisma } = controlPlane.services.db;
  await applyGatewayFile(prisma, controlPlane.services.records, parseGatewayFile(fuzzGatewayYaml(simulator.url)));
  vendorToken = (await createVendorToken(prisma, { vendor: "test-vendor", name: "fuzz", scopes: ["keys:create", "keys:read", "keys:update", "keys:revoke", "usage:read"] })).plaintext;
  proxy = await startProxy(
    loadProxyConfig({ PORT: "0", METRICS_PORT: "0", REDIS_URL: redisUrl, REDIS_PREFIX: prefix, CONTROL_PLANE_URL: controlPlane.url, AUTH_FREE_FAILURES: "1000000", CIRCUIT_FAILURE_THRESHOLD: "3", ...INTERNAL }),
    silent,
  );
  const mint = async (serverOption: string) => {
    const answer = await call(controlPlane.url, "POST", "/api/keys", {
      headers: { authorization: `Bearer ${vendorToken}`, "content-type": "application/json" },
      body: JSON.stringify({ server_option: serverOption, name: "fuzz", quota: "1000.00" }),
    });
    expect(answer.status).toBe(201);
    return JSON.parse(answer.text) as { id: string; key: string };
  };
  key = (await mint("same-name")).key;
  const vendor = await prisma.vendor.findUniqueOrThrow({ where: { name: "test-vendor" } });
  const customerId = `cus_${randomUUID().replaceAll("-", "")}`;
  await prisma.customer.create({ data: { id: customerId, vendorId: vendor.id, name: "fuzz", billing: "prepaid" } });
  const minted = await call(controlPlane.url, "POST", "/api/keys", {
    headers: { authorization: `Bearer ${vendorToken}`, "content-type": "application/json" },
    body: JSON.stringify({ server_option: "same-name", name: "fuzz customer", customer_id: customerId }),
  });
  expect(minted.status).toBe(201);
  customerKey = (JSON.parse(minted.text) as { key: string }).key;
  for (const option of ["standard", "cross-shape"]) victimIds.push((await mint(option)).id);
  const auth = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  const stored = await call(proxy.url, "POST", "/v1/responses", { headers: auth, body: JSON.stringify({ model: "gpt-same-name", input: "hi", max_output_tokens: 16, store: true }) });
  const conversation = await call(proxy.url, "POST", "/v1/conversations", { headers: auth, body: JSON.stringify({ items: [{ type: "message", role: "user", content: "hi" }] }) });
  expect([stored.status, conversation.status]).toEqual([200, 200]);
  stateIds.push((JSON.parse(stored.text) as { id: string }).id, (JSON.parse(conversation.text) as { id: string }).id);
  console.info(`fuzz-routes: FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS}`);
}, 60_000);

afterAll(async () => {
  await proxy?.close();
  const redis = controlPlane?.services.redis;
  const keys = redis ? await redis.keys(`${controlPlane.services.config.REDIS_PREFIX}:*`) : [];
  if (keys.length) await redis!.del(...keys);
  await controlPlane?.close();
  await simulator?.close();
  await database?.drop();
});

// ---- generators -------------------------------------------------------------------------------

/** Header values Node will send (latin1 without control characters); the rest become `?`. */
const headerSafe = (text: string) => text.replace(/[^\t\x20-\x7e\x80-\xff]/g, "?");
/** Path text Node will send (no space, control or wide characters): anything else percent-encoded. */
const pathSafe = (text: string) => text.replace(/[^\x21-\x7e]/g, (char) => encodeURIComponent(char).replace(/%25/g, "%"));

const nasty = fc.constantFrom(
  "", " ", "\u0000", "a\u0000b", "\u0001\u001f\u007f", "\n\r\t", "\u202e\u200b", "💥🧨", "\ud800", "\udfff", "é".repeat(50),
  "x".repeat(5000), "null", "true", "-1", "0", "1e309", "NaN", "%", "%00", "%E0%A4%A", "../..", "<script>", "'; drop table keys; --",
);
const hugeNumber = fc.constantFrom(0, -0, -1, 1.5, 1e21, -1e21, 1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, 2 ** 63, -(2 ** 63), 1e-320, 10_000_000_000);
const anyString = fc.oneof(nasty, fc.string({ maxLength: 40 }), fc.string({ unit: "binary", maxLength: 20 }));
const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ depthSize: "small", maxDepth: 4 }) },
  { weight: 2, arbitrary: anyString },
  { weight: 2, arbitrary: hugeNumber },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, [], {}, [[]], [{}], { type: 1 }, [{ type: "text" }]) },
);
/** `[[[...]]]` or `{"a":{"a":...}}` around the bound of 128 levels and beyond. */
const deep = fc.tuple(fc.integer({ min: 100, max: 400 }), fc.boolean()).map(([depth, objects]) =>
  JSON.parse(objects ? `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}` : `${"[".repeat(depth)}${"]".repeat(depth)}`) as unknown,
);

const message = fc.record(
  { role: fc.oneof(fc.constantFrom("system", "developer", "user", "assistant", "tool", "function"), anyValue), content: fc.oneof(fc.constant("hi"), anyValue), name: anyValue, tool_calls: anyValue, tool_call_id: anyValue },
  { requiredKeys: [] },
);
const MODELS = ["gpt-test", "claude-test", "gemini-test", "gemini3-test", "gemini-embedding-test", "gpt-same-name", "claude-same-name", "image-test", "hidden-test", "claude-on-openai", "gpt-on-anthropic", "gpt-chat-only", "image-on-anthropic", "mixed-test", "no-such-model"];
const model = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...MODELS) }, { weight: 1, arbitrary: anyValue });

const VALID_BODIES: Record<string, Record<string, unknown>> = {
  "/v1/chat/completions": { model: "gpt-same-name", messages: [{ role: "user", content: "hi" }], max_tokens: 8 },
  "/v1/messages": { model: "claude-same-name", max_tokens: 8, messages: [{ role: "user", content: "hi" }] },
  "/v1/responses": { model: "gpt-same-name", input: "hi", max_output_tokens: 16 },
  "/v1/images/generations": { model: "image-test", prompt: "a cat", n: 1 },
  "/v1/messages/count_tokens": { model: "claude-same-name", messages: [{ role: "user", content: "hi" }] },
  "/v1/embeddings": { model: "gpt-same-name", input: "hi" },
  "/v1/redeem": { code: "rc_0123456789abcdefghijklmnopqrstuvw" },
  "/v1/responses/input_tokens": { model: "gpt-same-name", input: "hi" },
  "/v1/conversations": { items: [{ type: "message", role: "user", content: "hi" }], metadata: { topic: "fuzz" } },
  generateContent: { contents: [{ role: "user", parts: [{ text: "hi" }] }], generationConfig: { maxOutputTokens: 8 } },
  streamGenerateContent: { contents: [{ role: "user", parts: [{ text: "hi" }] }], systemInstruction: { parts: [{ text: "Be brief." }] } },
  countTokens: { contents: [{ role: "user", parts: [{ text: "hi" }] }] },
  embedContent: { content: { parts: [{ text: "hi" }] } },
  batchEmbedContents: { requests: [{ model: "models/gemini-embedding-test", content: { parts: [{ text: "hi" }] } }] },
  "/api/keys": { server_option: "standard", name: "fuzz", quota: "1.00" },
  "/api/keys/{id}": { name: "renamed", quota: "2.00" },
  "/api/keys/{id}/rotate": { grace_seconds: 5 },
};
const FIELDS = [
  "model", "messages", "max_tokens", "max_completion_tokens", "n", "temperature", "top_p", "stream", "stream_options", "tools", "tool_choice", "system",
  "input", "instructions", "max_output_tokens", "prompt", "size", "response_format", "metadata", "stop", "stop_sequences", "thinking", "reasoning",
  "encoding_format", "dimensions",
  "server_option", "name", "quota", "top_up", "rpm", "tpm", "budget", "expires_at", "status", "grace_seconds",
  "code", "items", "previous_response_id", "conversation", "store",
  "contents", "generationConfig", "systemInstruction", "tools", "toolConfig", "content", "requests", "safetySettings", "cachedContent", "parts", "role",
];

/** A valid body with some fields replaced by random values, some removed, and random extra fields. */
function mutated(path: string): fc.Arbitrary<unknown> {
  const base = VALID_BODIES[path] ?? {};
  return fc
    .tuple(
      fc.dictionary(fc.constantFrom(...FIELDS), fc.oneof(anyValue, deep, fc.array(message, { maxLength: 3 }), model), { maxKeys: 3 }),
      fc.subarray(Object.keys(base), { maxLength: Math.min(1, Object.keys(base).length) }),
      fc.dictionary(anyString, anyValue, { maxKeys: 2 }),
      fc.option(fc.constantFrom(true, false), { nil: undefined }),
    )
    .map(([replaced, removed, extra, stream]) => {
      const body: Record<string, unknown> = { ...extra, ...base, ...replaced };
      for (const field of removed) delete body[field];
      if (stream !== undefined) body.stream = stream;
      return body;
    });
}

/** A request body: mutated valid JSON, any JSON value, deep nesting, or bytes that are not JSON at all. */
function bodyFor(path: string): fc.Arbitrary<string | Buffer[] | undefined> {
  return fc.oneof(
    { weight: 5, arbitrary: mutated(path).map((value) => JSON.stringify(value)) },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 6 }).map((value) => JSON.stringify(value)) },
    { weight: 1, arbitrary: deep.map((value) => JSON.stringify({ ...VALID_BODIES[path], metadata: value })) },
    { weight: 1, arbitrary: fc.constantFrom('{"model": "gpt-test", ', "{", "[", '"', "1e400", '{"max_tokens": 1e400}', '{"a":"\\ud800"}', "\u0000", "", "null", '{"__proto__": {"x": 1}}', '{"constructor": {"prototype": 1}}') },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((bytes) => [Buffer.from(bytes)]) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

const QUERY_KEYS = ["limit", "cursor", "from", "to", "group_by", "model", "key_id", "status", "api_key_id", "before", "after", "order", "page", "q"];
const queryValue = fc.oneof(
  fc.constantFrom(
    "99999-01-01", "2026-13-45", "2026-02-30", "0000-01-01", "-271821-04-20", "+275760-09-13T00:00:00Z", "+275761-01-01", "1969-12-31T23:59:59Z",
    "2026-11-01", "2026-11-01T00:00:00Z", "2026-11-01T00:00:00+14:00", "day", "model", "key", "day,model", "junk", "", "0", "-1", "1.5", "1e999",
    "100000000000", "NaN", "%E0%A4%A", "%00", "%2e%2e", "%", "key_", "req_", "a,b,c", "[]", "{}",
  ),
  fc.string({ maxLength: 30 }).map(encodeURIComponent),
  fc.integer().map(String),
);
const query = fc
  .array(fc.tuple(fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...QUERY_KEYS) }, { weight: 1, arbitrary: fc.string({ maxLength: 8 }).map(encodeURIComponent) }), queryValue, fc.boolean()), { maxLength: 4 })
  .map((pairs) => (pairs.length === 0 ? "" : `?${pairs.map(([name, value, array]) => (array ? `${name}[]=${value}` : `${name}=${value}`)).join("&")}`));

const method = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom("GET", "POST", "PATCH", "DELETE") },
  { weight: 1, arbitrary: fc.constantFrom("PUT", "HEAD", "OPTIONS", "TRACE", "PROPFIND", "SEARCH", "PURGE") },
);

const CONTENT_TYPES = ["application/json", "application/json; charset=utf-8", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/json; charset=latin1", "APPLICATION/JSON", "", "*/*", "application/jsonx"];
const headers = (credential: fc.Arbitrary<string | null>) =>
  fc
    .record(
      {
        credential,
        credentialHeader: fc.constantFrom("authorization", "x-api-key"),
        contentType: fc.oneof({ weight: 5, arbitrary: fc.constant("application/json") }, { weight: 2, arbitrary: fc.constantFrom(...CONTENT_TYPES) }, { weight: 1, arbitrary: anyString }),
        anthropicVersion: fc.option(fc.oneof(fc.constantFrom("2023-06-01", "2026-10-21", "latest", "2023-6-1", "9999-99-99", ""), anyString), { nil: undefined }),
        idempotencyKey: fc.option(fc.oneof(fc.uuid(), fc.constantFrom("", "x".repeat(1000), "key with spaces")), { nil: undefined }),
        extra: fc.dictionary(fc.constantFrom("accept", "accept-encoding", "x-request-id", "traceparent", "anthropic-beta", "openai-organization", "x-stainless-retry-count"), anyString, { maxKeys: 2 }),
      },
      { requiredKeys: ["credential", "credentialHeader", "contentType"] },
    )
    .map(({ credential, credentialHeader, contentType, anthropicVersion, idempotencyKey, extra }) => {
      const result: Record<string, string> = {};
      for (const [name, value] of Object.entries(extra ?? {})) result[name] = headerSafe(value);
      result["content-type"] = headerSafe(contentType);
      if (credential !== null) result[credentialHeader] = credentialHeader === "authorization" ? `Bearer ${credential}` : credential;
      if (anthropicVersion !== undefined) result["anthropic-version"] = headerSafe(anthropicVersion);
      if (idempotencyKey !== undefined) result["idempotency-key"] = headerSafe(idempotencyKey);
      return result;
    });

const BAD_SEGMENTS = ["%E0%A4%A", "%00", "%2e%2e", "..", "%", "%zz", "%C0%AF", "%FF", "%2F", "a%20b", "%25", "key_%00", "%ED%A0%80", "."];
const idSegment = () =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...victimIds) },
    { weight: 2, arbitrary: fc.constantFrom(...BAD_SEGMENTS) },
    { weight: 2, arbitrary: fc.string({ maxLength: 40 }).map(encodeURIComponent) },
    { weight: 1, arbitrary: fc.constantFrom("key_", `key_${"0".repeat(32)}`, "x".repeat(300), "req_1", "vt_1") },
  );

// ---- checks -----------------------------------------------------------------------------------

interface Sent {
  base: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | Buffer[] | undefined;
}

/** One request on its own connection, so an answer is never confused with an earlier one's socket. */
function send(request: Sent): Promise<Answer> {
  const { hostname, port } = new URL(request.base);
  // An explicit length: Node sends no framing for a DELETE/GET body otherwise, and the server would
  // read the body as the next request.
  const body = request.body === undefined ? undefined : Array.isArray(request.body) ? Buffer.concat(request.body) : Buffer.from(request.body);
  const headers = body === undefined ? request.headers : { ...request.headers, "content-length": String(body.length) };
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({ hostname, port, method: request.method, path: request.path, headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => {
        const body = Buffer.concat(chunks);
        resolve({ status: response.statusCode!, headers: response.headers, body, text: body.toString("utf8") });
      });
      response.on("error", reject);
    });
    outgoing.on("error", reject);
    outgoing.end(body);
  });
}

/**
 * The contract's promises for one answer; a message naming what broke, or null. On the proxy's
 * Gemini paths (`isGeminiPath`: anything under /v1beta, a POST to /v1/models/{model}:{method}): no
 * 5xx, the request id, and every error in Google's envelope (`{"error":{"code":404,"message":"…",
 * "status":"NOT_FOUND"}}`, contract section 16) whose code is the HTTP status; the one envelope
 * everywhere else.
 */
function violation(request: Sent, answer: Answer): string | null {
  if (request.base !== proxy.url || !isGeminiPath(request.method, request.path.split("?")[0]!)) return envelopeViolation(request, answer);
  if (answer.status >= 500) return `answered ${answer.status}: ${answer.text.slice(0, 300)}`;
  const requestId = answer.headers["x-request-id"];
  if (typeof requestId !== "string" || !/^req_/.test(requestId)) return `no x-request-id on ${answer.status}: ${answer.text.slice(0, 200)}`;
  if (answer.status < 400 || request.method === "HEAD") return null;
  let body: { error?: Record<string, unknown> };
  try {
    body = JSON.parse(answer.text) as typeof body;
  } catch {
    return `error ${answer.status} is not JSON: ${answer.text.slice(0, 200)}`;
  }
  const error = body.error;
  const envelope = typeof error === "object" && error !== null && error.code === answer.status && typeof error.message === "string" && typeof error.status === "string" && /^[A-Z_]+$/.test(error.status);
  return envelope ? null : `error ${answer.status} is not Google's envelope: ${answer.text.slice(0, 300)}`;
}

/** The contract's promises for one answer off the Gemini routes; a message naming what broke, or null. */
function envelopeViolation(request: Sent, answer: Answer): string | null {
  if (answer.status >= 500) return `answered ${answer.status}: ${answer.text.slice(0, 300)}`;
  const requestId = answer.headers["x-request-id"];
  if (typeof requestId !== "string" || !/^req_/.test(requestId)) return `no x-request-id on ${answer.status}: ${answer.text.slice(0, 200)}`;
  if (answer.status < 400 || request.method === "HEAD") return null;
  let body: { type?: unknown; error?: Record<string, unknown>; request_id?: unknown };
  try {
    body = JSON.parse(answer.text) as typeof body;
  } catch {
    return `error ${answer.status} is not JSON: ${answer.text.slice(0, 200)}`;
  }
  const error = body.error;
  const envelope =
    body.type === "error" &&
    typeof error === "object" && error !== null &&
    typeof error.type === "string" && typeof error.message === "string" &&
    (typeof error.code === "string" || error.code === null) &&
    (typeof error.param === "string" || error.param === null) &&
    body.request_id === requestId;
  return envelope ? null : `error ${answer.status} is not the envelope: ${answer.text.slice(0, 300)}`;
}

/** Runs one property over generated requests, with the seed printed so a failure can be replayed. */
async function fuzz(name: string, requests: fc.Arbitrary<Sent>, runs = RUNS): Promise<void> {
  let sent = 0;
  await fc.assert(
    fc.asyncProperty(requests, async (request) => {
      const answer = await send(request);
      sent += 1;
      const broken = violation(request, answer);
      if (broken) throw new Error(`${request.method} ${request.path} -> ${broken}`);
    }),
    { seed: SEED, numRuns: runs, interruptAfterTimeLimit: BUDGET_MS, endOnFailure: process.env.FUZZ_SHRINK !== "1", reporter: (details) => {
      if (details.failed) throw new Error(`${name}: ${String(details.errorInstance)}\n${fc.defaultReportMessage(details)}\nReplay with FUZZ_SEED=${SEED}`);
    } },
  );
  console.info(`fuzz-routes: ${name}: ${sent} requests`);
  expect(sent, `${name}: requests sent within FUZZ_BUDGET_S`).toBeGreaterThanOrEqual(MIN_RUNS);
}

const credential = () => fc.oneof({ weight: 8, arbitrary: fc.constant(key) }, { weight: 1, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.constantFrom("sk-nope", vendorToken, "", "sk-" + "a".repeat(300)) });
const vendorCredential = () => fc.oneof({ weight: 8, arbitrary: fc.constant(vendorToken) }, { weight: 1, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.constantFrom("vt_nope", key, "", "vt_" + "a".repeat(300)) });

/** Every /api route of the vendor API, with its ids filled in. */
function apiPath(): fc.Arbitrary<{ template: string; path: string }> {
  const templates = [
    "/api/keys", "/api/keys/{id}", "/api/keys/{id}/rotate", "/api/keys/{id}/usage", "/api/usage", "/api/requests", "/api/audit-log",
    "/api/server-options", "/api/token", "/api/openapi.json",
  ];
  return fc.tuple(fc.constantFrom(...templates), idSegment(), query).map(([template, id, search]) => ({ template, path: `${template.replace("{id}", id)}${search}` }));
}

// ---- the properties ---------------------------------------------------------------------------

describe("fuzz: no route of the proxy or the control plane answers 5xx, and every error is the one envelope", () => {
  it("the model endpoints and /v1/redeem: mutated and arbitrary bodies, bad headers", async () => {
    const paths = ["/v1/chat/completions", "/v1/messages", "/v1/responses", "/v1/images/generations", "/v1/messages/count_tokens", "/v1/embeddings", "/v1/redeem", "/v1/responses/input_tokens", "/v1/conversations"];
    const requests = fc
      .constantFrom(...paths)
      .chain((path) => fc.record({ path: fc.tuple(fc.constant(path), fc.oneof({ weight: 5, arbitrary: fc.constant("") }, { weight: 1, arbitrary: query })).map(([p, q]) => p + q), body: bodyFor(path), headers: headers(credential()), method: fc.oneof({ weight: 9, arbitrary: fc.constant("POST") }, { weight: 1, arbitrary: method }) }))
      .map(({ path, body, headers, method }) => ({ base: proxy.url, method, path, headers, body: method === "GET" || method === "HEAD" ? undefined : body }));
    await fuzz("model endpoints", requests, RUNS * 2);
  });

  it("/v1/redeem with a customer's key: arbitrary codes and bodies reach the claim and get the envelope", async () => {
    const code = fc.oneof(anyValue, anyString, fc.string({ maxLength: 250 }).map((text) => `rc_${text}`), fc.constantFrom("rc_", "rc_" + "a".repeat(197), "rc_" + "a".repeat(198), "rc_%", "rc_'--", "RC_ABC"));
    const body = fc.oneof({ weight: 3, arbitrary: code.map((value) => JSON.stringify({ code: value })) }, { weight: 1, arbitrary: bodyFor("/v1/redeem") });
    const customerCredential = fc.oneof({ weight: 8, arbitrary: fc.constant(customerKey) }, { weight: 1, arbitrary: fc.constant(key) }, { weight: 1, arbitrary: fc.constant(null) });
    const requests = fc
      .record({ body, headers: headers(customerCredential), method: fc.oneof({ weight: 9, arbitrary: fc.constant("POST") }, { weight: 1, arbitrary: method }) })
      .map(({ body, headers, method }) => ({ base: proxy.url, method, path: "/v1/redeem", headers, body: method === "GET" || method === "HEAD" ? undefined : body }));
    await fuzz("/v1/redeem", requests, Math.ceil(RUNS / 4));
  });

  it("the Gemini routes under /v1beta and /v1: every method, any model, key by header, query or Bearer, mutated bodies", async () => {
    const METHODS = ["generateContent", "streamGenerateContent", "countTokens", "embedContent", "batchEmbedContents"];
    const geminiModel = fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...MODELS) }, { weight: 1, arbitrary: fc.constantFrom(...BAD_SEGMENTS) }, { weight: 1, arbitrary: fc.string({ maxLength: 20 }).map(pathSafe) });
    const requests = fc
      .record({
        version: fc.constantFrom("/v1beta", "/v1"),
        model: geminiModel,
        action: fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...METHODS) }, { weight: 1, arbitrary: fc.constantFrom("", "list", "generateContent:x", "%3A") }),
        alt: fc.constantFrom("", "?alt=sse", "?alt=json", "?alt=%00"),
        credential: credential(),
        how: fc.constantFrom("x-goog-api-key", "key", "authorization"),
        method: fc.oneof({ weight: 9, arbitrary: fc.constant("POST") }, { weight: 1, arbitrary: method }),
        extra: headers(fc.constant(null)),
      })
      .chain((sent) => bodyFor(sent.action).map((body) => ({ ...sent, body })))
      .map(({ version, model, action, alt, credential, how, method, extra, body }) => {
        const headers: Record<string, string> = { ...extra };
        let search = alt;
        if (credential !== null && how === "key") search += `${search ? "&" : "?"}key=${encodeURIComponent(credential)}`;
        else if (credential !== null) headers[how] = how === "authorization" ? `Bearer ${credential}` : credential;
        return { base: proxy.url, method, path: `${version}/models/${model}:${action}${search}`, headers, body: method === "GET" || method === "HEAD" ? undefined : body };
      });
    const listing = fc
      .record({ version: fc.constantFrom("/v1beta"), model: fc.option(geminiModel, { nil: undefined }), search: query, method, extra: headers(credential()) })
      .map(({ version, model, search, method, extra }) => ({ base: proxy.url, method, path: `${version}/models${model === undefined ? "" : `/${model}`}${search}`, headers: { ...extra, "x-goog-api-key": key }, body: undefined }));
    await fuzz("Gemini routes", fc.oneof({ weight: 5, arbitrary: requests }, { weight: 1, arbitrary: listing }), RUNS);
  });

  it("stored responses and conversations: every id route, random methods, ids, queries and bodies", async () => {
    const templates = ["/v1/responses/{id}", "/v1/responses/{id}/input_items", "/v1/conversations", "/v1/conversations/{id}", "/v1/conversations/{id}/items", "/v1/conversations/{id}/items/{id}"];
    const stateId = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...stateIds) }, { weight: 2, arbitrary: idSegment() }, { weight: 1, arbitrary: fc.constantFrom("resp_", "conv_", "msg_1", `resp_${"0".repeat(48)}`) });
    const requests = fc
      .record({ template: fc.constantFrom(...templates), id: stateId, item: stateId, search: query, method, headers: headers(credential()) })
      .chain((sent) => bodyFor("/v1/conversations").map((body) => ({ ...sent, body })))
      .map(({ template, id, item, search, method, headers, body }) => ({ base: proxy.url, method, path: template.replace("{id}", id).replace("{id}", item) + search, headers, body: method === "GET" || method === "HEAD" ? undefined : body }));
    await fuzz("stored responses and conversations", requests);
  });

  it("the proxy's GET routes: discovery, models, a model by id, usage, with random queries and methods", async () => {
    const requests = fc
      .record({
        route: fc.constantFrom("/v1", "/v1/models", "/v1/models/{id}", "/v1/usage", "/healthz", "/readyz"),
        id: fc.oneof(fc.constantFrom(...MODELS, "org/gpt-test", "org%2Fgpt-test"), fc.constantFrom(...BAD_SEGMENTS), fc.string({ maxLength: 30 }).map(pathSafe)),
        search: query,
        method: fc.oneof({ weight: 6, arbitrary: fc.constant("GET") }, { weight: 1, arbitrary: method }),
        headers: headers(credential()),
        body: fc.option(fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)), { nil: undefined }),
      })
      .map(({ route, id, search, method, headers, body }) => ({ base: proxy.url, method, path: route.replace("{id}", id) + search, headers, body: method === "GET" || method === "HEAD" ? undefined : body }));
    await fuzz("proxy GET routes", requests);
  });

  for (const [where, base] of [["through the proxy", () => proxy.url], ["on the control plane directly", () => controlPlane.url]] as const) {
    it(`the vendor API ${where}: every /api route, random methods, ids, queries and bodies`, async () => {
      const requests = fc
        .record({ route: apiPath(), method, headers: headers(vendorCredential()) })
        .chain(({ route, method, headers }) => bodyFor(route.template).map((body) => ({ base: base(), method, path: route.path, headers, body: method === "GET" || method === "HEAD" ? undefined : body })));
      await fuzz(`vendor API ${where}`, requests, RUNS * 2);
    });
  }

  it("the control plane's /internal/keys/{id}/usage with the internal token (and without)", async () => {
    const requests = fc
      .record({
        id: idSegment(),
        search: query,
        method: fc.oneof({ weight: 6, arbitrary: fc.constant("GET") }, { weight: 1, arbitrary: method }),
        token: fc.oneof({ weight: 6, arbitrary: fc.constant(INTERNAL.INTERNAL_TOKEN) }, { weight: 1, arbitrary: anyString.map(headerSafe) }),
      })
      .map(({ id, search, method, token }) => ({ base: controlPlane.url, method, path: `/internal/keys/${id}/usage${search}`, headers: { "x-internal-token": token }, body: undefined }));
    await fuzz("internal key usage", requests);
  });

  it("malformed paths anywhere: percent-encoding, dot segments, NULs, on both services", async () => {
    const requests = fc
      .record({
        base: fc.constantFrom(() => proxy.url, () => controlPlane.url),
        prefix: fc.constantFrom("/v1", "/v1/models", "/api", "/api/keys", "/internal/keys", "/console", "", "/v1/chat/completions"),
        segments: fc.array(fc.oneof(fc.constantFrom(...BAD_SEGMENTS), fc.string({ maxLength: 10 }).map(pathSafe)), { minLength: 1, maxLength: 4 }),
        search: query,
        method,
        headers: headers(fc.constantFrom(key, vendorToken, null)),
      })
      .map(({ base, prefix, segments, search, method, headers }) => ({ base: base(), method, path: `${prefix}/${segments.join("/")}${search}`.replace(/^\/\//, "/"), headers, body: undefined }));
    await fuzz("malformed paths", requests);
  });

  it("inputs the fuzz found once stay fixed: usage dates Postgres cannot hold are a 400 naming the field", async () => {
    for (const path of ["/v1/usage?from=-271821-04-20", "/v1/usage?to=%2B275760-09-13T00:00:00Z"]) {
      const answer = await send({ base: proxy.url, method: "GET", path, headers: { authorization: `Bearer ${key}` }, body: undefined });
      expect([answer.status, violation({ base: proxy.url, method: "GET", path, headers: {}, body: undefined }, answer)]).toEqual([400, null]);
    }
    const internal = await send({ base: controlPlane.url, method: "GET", path: `/internal/keys/${victimIds[0]}/usage?to=-271821-04-20`, headers: { "x-internal-token": INTERNAL.INTERNAL_TOKEN }, body: undefined });
    expect([internal.status, JSON.parse(internal.text).error.param]).toEqual([400, "to"]);
  });

  it("afterwards both services still answer, and no upstream's circuit was opened", async () => {
    expect((await call(proxy.url, "GET", "/v1")).status).toBe(200);
    expect((await call(controlPlane.url, "GET", "/healthz")).status).toBe(200);
    expect(proxy.services.breaker.openUpstreams()).toEqual([]);
    const chat = await call(proxy.url, "POST", "/v1/chat/completions", {
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-test", max_tokens: 8, messages: [{ role: "user", content: "still here?" }] }),
    });
    expect(chat.status).toBe(200);
  });
});
