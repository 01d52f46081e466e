// The /api relay against a hostile client (contract section 14: no client can crash or stall a
// process): aborts at every phase leave a real proxy process alive and serving; trickling uploads
// fill only the relay's pool, never /v1/usage's; one vendor gets a bounded share; a stalled body is
// a 408.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { parseGatewayFile } from "@gateway/config";
import { createLogger } from "@gateway/logger";
import { createTestDatabase, resolveTestServices, type TestDatabase } from "@gateway/testing";
import { startSimulator, type Simulator } from "@gateway/simulator";
import { applyGatewayFile, createVendorToken, loadControlPlaneConfig, mintKey, startControlPlane, type RunningControlPlane } from "@gateway/control-plane";
import { loadProxyConfig } from "../src/config.ts";
import { startProxy, type RunningProxy } from "../src/server.ts";
import { SIMULATOR_SECRET, testGatewayYaml } from "./stack.ts";
import { spawnProxy, type ProxyProcess } from "./replicas.ts";
import { bearer, call, expectEnvelope } from "./raw-http.ts";
import { RawSocket, requestHead } from "./raw-socket.ts";

const silent = createLogger({ name: "test", level: "silent" });
const INTERNAL = { INTERNAL_TOKEN: `internal-${randomUUID()}` };
/** Uploads that never finish (the control plane waits for the rest of the body). */
const TRICKLING_LENGTH = 100_000;
let redisUrl: string;
let prefix: string;
let database: TestDatabase;
let simulator: Simulator;
let controlPlane: RunningControlPlane;
let token: string;
let clientKey: string;
/** Requests the control plane has received (its handler started), for waiting on the relay. */
let controlPlaneRequests = 0;
const opened: RawSocket[] = [];

const vendorToken = async (name: string) =>
  (await createVendorToken(controlPlane.services.db.prisma, { vendor: "test-vendor", name, scopes: ["keys:create", "keys:read", "usage:read"] })).plaintext;

/** POST /api/keys with a body that stops after its first bytes: it holds a relay connection. */
async function trickle(base: string, bearerToken: string): Promise<RawSocket> {
  const raw = await RawSocket.open(base);
  opened.push(raw);
  const head = requestHead("POST", "/api/keys", { authorization: `Bearer ${bearerToken}`, "content-type": "application/json", "content-length": String(TRICKLING_LENGTH) });
  await raw.write(`${head}{"server_option":"standard","name":"`);
  return raw;
}

beforeAll(async () => {
  ({ redisUrl } = await resolveTestServices());
  prefix = `test-${randomUUID().slice(0, 8)}`;
  database = await createTestDatabase();
  simulator = await startSimulator({ apiKey: SIMULATOR_SECRET });
  controlPlane = await startControlPlane(loadControlPlaneConfig({ DATABASE_URL: database.url, REDIS_URL: redisUrl, REDIS_PREFIX: prefix, PORT: "0", AUTH_FREE_FAILURES: "100000", ...INTERNAL }), silent);
  controlPlane.http.server.on("request", () => (controlPlaneRequests += 1));
  const { prisma } = controlPlane.services.db;
  await applyGatewayFile(prisma, controlPlane.services.records, parseGatewayFile(testGatewayYaml(simulator.url)));
  token = await vendorToken("all");
  const vendor = await prisma.vendor.findUniqueOrThrow({ where: { name: "test-vendor" } });
  const minted = await mintKey(prisma, controlPlane.services.records, { vendorId: vendor.id, serverOption: "standard", name: "neighbour", quotaNano: null, expiresAt: null, rpm: null, tpm: null, metadata: {} });
  clientKey = minted.plaintext;
});

afterAll(async () => {
  for (const raw of opened) raw.abort();
  const redis = controlPlane?.services.redis;
  const keys = redis ? await redis.keys(`${prefix}:*`) : [];
  if (keys.length) await redis!.del(...keys);
  await controlPlane?.close();
  await simulator?.close();
  await database?.drop();
});

describe("a client that leaves at any phase of an /api relay", () => {
  let proxy: ProxyProcess;
  beforeAll(async () => {
    // Two relay connections, so a third request waits for one (the phase that crashed the worker).
    proxy = await spawnProxy({ REDIS_URL: redisUrl, REDIS_PREFIX: prefix, CONTROL_PLANE_URL: controlPlane.url, API_RELAY_CONNECTIONS: "2", API_RELAY_VENDOR_CONCURRENCY: "1000", CONTROL_PLANE_BODY_TIMEOUT_MS: "60000", AUTH_FREE_FAILURES: "100000", ...INTERNAL });
  });
  afterAll(async () => proxy?.stop());

  it("never ends the process (nor does any other route's abort): it still serves /v1 and /api afterwards", async () => {
    const pid = proxy.child.pid;
    const post = (length: number) => requestHead("POST", "/api/keys", { authorization: `Bearer ${token}`, "content-type": "application/json", "content-length": String(length) });

    // In the middle of the head.
    const midHead = await RawSocket.open(proxy.url);
    await midHead.write("POST /api/keys HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bea");
    midHead.abort();

    // After the head, with no body byte (undici sends nothing before the first one: a request the
    // proxy answered on another connection shows it has read this head).
    const headOnly = await RawSocket.open(proxy.url);
    await headOnly.write(post(1_000));
    expect((await call(proxy.url, "GET", "/healthz")).status).toBe(200);
    headOnly.abort();

    // In the middle of a body being relayed.
    const before = controlPlaneRequests;
    const midBody = await RawSocket.open(proxy.url);
    await midBody.write(`${post(1_000)}{"server_option":"stan`);
    await vi.waitFor(() => expect(controlPlaneRequests).toBeGreaterThan(before), { timeout: 10_000 });
    midBody.abort();

    // While its answer streams back (a large response), after its first bytes.
    const reading = await RawSocket.open(proxy.url);
    await reading.write(requestHead("GET", "/api/openapi.json", {}));
    await vi.waitFor(() => expect(reading.status()).toBe(200), { timeout: 10_000 });
    reading.abort();

    // While waiting for a relay connection: both are held by uploads that never finish...
    const beforeHolders = controlPlaneRequests;
    const holders = [await trickle(proxy.url, token), await trickle(proxy.url, token)];
    await vi.waitFor(() => expect(controlPlaneRequests).toBe(beforeHolders + 2), { timeout: 10_000 });
    // ...so these wait in the pool's queue, with part of a body, all of it, or none, and leave.
    const waiting: RawSocket[] = [];
    for (let index = 0; index < 20; index += 1) {
      const raw = await RawSocket.open(proxy.url);
      const body = '{"server_option":"standard","name":"queued"}';
      await raw.write(index % 3 === 0 ? post(body.length) : index % 3 === 1 ? `${post(body.length)}${body.slice(0, 10)}` : `${post(body.length)}${body}`);
      waiting.push(raw);
    }
    // Each is answered by nobody yet: they are queued, not refused.
    expect(waiting.map((raw) => raw.status())).toEqual(waiting.map(() => null));
    for (const raw of waiting) raw.abort();
    // The holders leave mid-body too, which frees the connections.
    for (const raw of holders) raw.abort();

    // Every body route, and /v1/usage: left after the head, mid-body and after the whole body
    // (while the key is checked, the body parsed or the upstream called).
    const chat = JSON.stringify({ model: "gpt-test", max_tokens: 16, messages: [{ role: "user", content: "hi" }] });
    for (const path of ["/v1/chat/completions", "/v1/messages", "/v1/responses", "/v1/embeddings", "/v1/images/generations", "/v1/messages/count_tokens"]) {
      for (const cut of [0, 10, chat.length]) {
        const raw = await RawSocket.open(proxy.url);
        await raw.write(`${requestHead("POST", path, { authorization: `Bearer ${clientKey}`, "content-type": "application/json", "content-length": String(chat.length) })}${chat.slice(0, cut)}`);
        expect((await call(proxy.url, "GET", "/healthz")).status).toBe(200);
        raw.abort();
      }
    }
    const usage = await RawSocket.open(proxy.url);
    await usage.write(requestHead("GET", "/v1/usage", { authorization: `Bearer ${clientKey}` }));
    usage.abort();
    // And a stream, once its first bytes came.
    const stream = await RawSocket.open(proxy.url);
    const streamed = JSON.stringify({ model: "gpt-test", stream: true, messages: [{ role: "user", content: "tell me a long story" }] });
    await stream.write(`${requestHead("POST", "/v1/chat/completions", { authorization: `Bearer ${clientKey}`, "content-type": "application/json", "content-length": String(streamed.length) })}${streamed}`);
    await vi.waitFor(() => expect(stream.status()).toBe(200), { timeout: 10_000 });
    stream.abort();

    // The same process: alive and serving both surfaces.
    expect(proxy.child.exitCode).toBeNull();
    expect(proxy.child.pid).toBe(pid);
    expect((await call(proxy.url, "GET", "/v1/models", { headers: bearer(clientKey) })).status).toBe(200);
    expect((await call(proxy.url, "GET", "/api/server-options", { headers: bearer(token) })).status).toBe(200);
    expect(proxy.child.exitCode).toBeNull();
  });
});

describe("the /api relay's limits", () => {
  const RELAY_CONNECTIONS = 8;
  const PER_VENDOR = 4;
  let proxy: RunningProxy;
  beforeAll(async () => {
    proxy = await startProxy(
      loadProxyConfig({
        PORT: "0",
        METRICS_PORT: "0",
        REDIS_URL: redisUrl,
        REDIS_PREFIX: prefix,
        CONTROL_PLANE_URL: controlPlane.url,
        API_RELAY_CONNECTIONS: String(RELAY_CONNECTIONS),
        API_RELAY_VENDOR_CONCURRENCY: String(PER_VENDOR),
        CONTROL_PLANE_BODY_TIMEOUT_MS: "60000",
        AUTH_FREE_FAILURES: "100000",
        ...INTERNAL,
      }),
      silent,
    );
  });
  afterAll(async () => proxy?.close());

  it("answers /v1/usage while 200 trickling /api uploads hold the relay's pool", async () => {
    // 200 vendors, one upload each (within each one's share), all left hanging mid-body.
    const tokens = await Promise.all(Array.from({ length: 200 }, (_, index) => vendorToken(`trickler-${index}`)));
    const uploads = await Promise.all(tokens.map((each) => trickle(proxy.url, each)));
    const relay = proxy.services.controlPlane.relay;
    await vi.waitFor(() => expect(relay.stats.size).toBe(200), { timeout: 20_000 });
    expect(relay.stats.running).toBe(RELAY_CONNECTIONS);

    const usage = await Promise.all(Array.from({ length: 20 }, () => call(proxy.url, "GET", "/v1/usage", { headers: bearer(clientKey) })));
    expect(usage.map((answer) => answer.status)).toEqual(usage.map(() => 200));
    // Answered while every upload was still open and unanswered.
    expect(uploads.filter((raw) => raw.status() !== null || raw.socket.destroyed).length).toBe(0);
    expect(relay.stats.size).toBe(200);
    for (const raw of uploads) raw.abort();
    await vi.waitFor(() => expect(relay.stats.size).toBe(0), { timeout: 20_000 });
  });

  it("gives one vendor at most its share of concurrent relayed requests (429 with retry-after), others unaffected", async () => {
    const greedy = await vendorToken("greedy");
    const held = await Promise.all(Array.from({ length: PER_VENDOR }, () => trickle(proxy.url, greedy)));
    await vi.waitFor(() => expect(proxy.services.controlPlane.relay.stats.size).toBe(PER_VENDOR), { timeout: 10_000 });
    const refused = await call(proxy.url, "GET", "/api/server-options", { headers: bearer(greedy) });
    expectEnvelope(refused, 429, "rate_limit_error", "rate_limit_exceeded");
    expect(refused.headers["retry-after"]).toBe("1");
    expect((await call(proxy.url, "GET", "/api/server-options", { headers: bearer(token) })).status).toBe(200);
    // A slot comes back when its request ends (the client left).
    held[0]!.abort();
    await vi.waitFor(async () => expect((await call(proxy.url, "GET", "/api/server-options", { headers: bearer(greedy) })).status).toBe(200), { timeout: 10_000 });
    // ...and when it is answered: one free slot serves one request after another.
    for (let index = 0; index < 3; index += 1) expect((await call(proxy.url, "GET", "/api/server-options", { headers: bearer(greedy) })).status).toBe(200);
    for (const raw of held) raw.abort();
  });
});

describe("a client that stops sending its /api body", () => {
  let proxy: RunningProxy;
  beforeAll(async () => {
    proxy = await startProxy(
      loadProxyConfig({ PORT: "0", METRICS_PORT: "0", REDIS_URL: redisUrl, REDIS_PREFIX: prefix, CONTROL_PLANE_URL: controlPlane.url, CONTROL_PLANE_BODY_TIMEOUT_MS: "300", ...INTERNAL }),
      silent,
    );
  });
  afterAll(async () => proxy?.close());

  it("gets 408 once a pause between two chunks passes the body timeout, and its connection is closed", async () => {
    const raw = await trickle(proxy.url, token);
    await raw.closed;
    expect(raw.status()).toBe(408);
    expect(JSON.parse(raw.body())).toMatchObject({ type: "error", error: { type: "invalid_request_error", code: "request_timeout" } });
    expect(proxy.services.controlPlane.relay.stats.size).toBe(0);
  });
});
