import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseGatewayFile } from "@gateway/config";
import { createLogger } from "@gateway/logger";
import { createTestDatabase, resolveTestServices, type TestDatabase } from "@gateway/testing";
import { startSimulator, type Simulator } from "@gateway/simulator";
import { applyGatewayFile, createVendorToken, loadControlPlaneConfig, startControlPlane, type RunningControlPlane } from "@gateway/control-plane";
import { loadProxyConfig } from "../src/config.ts";
import { startProxy, type RunningProxy } from "../src/server.ts";
import { SIMULATOR_SECRET, testGatewayYaml } from "./stack.ts";
import { bearer, call, expectEnvelope, json } from "./raw-http.ts";

// One address (contract section 8): the vendor API through the proxy's URL, byte for byte, and
// never the control plane's internal routes.
const silent = createLogger({ name: "test", level: "silent" });
const INTERNAL = { INTERNAL_TOKEN: `internal-${randomUUID()}` };
const BODY_LIMIT = 64 * 1024;
let database: TestDatabase;
let simulator: Simulator;
let controlPlane: RunningControlPlane;
let proxy: RunningProxy;
let token: string;
let readOnlyToken: string;

beforeAll(async () => {
  const { redisUrl } = await resolveTestServices();
  const prefix = `test-${randomUUID().slice(0, 8)}`;
  database = await createTestDatabase();
  simulator = await startSimulator({ apiKey: SIMULATOR_SECRET });
  controlPlane = await startControlPlane(loadControlPlaneConfig({ DATABASE_URL: database.url, REDIS_URL: redisUrl, REDIS_PREFIX: prefix, PORT: "0", AUTH_FREE_FAILURES: "1000", ...INTERNAL }), silent);
  const { prisma } = controlPlane.services.db;
  await applyGatewayFile(prisma, controlPlane.services.records, parseGatewayFile(testGatewayYaml(simulator.url)));
  token = (await createVendorToken(prisma, { vendor: "test-vendor", name: "all", scopes: ["keys:create", "keys:read", "keys:revoke", "usage:read"] })).plaintext;
  readOnlyToken = (await createVendorToken(prisma, { vendor: "test-vendor", name: "read", scopes: ["keys:read"] })).plaintext;
  proxy = await startProxy(loadProxyConfig({ PORT: "0", METRICS_PORT: "0", REDIS_URL: redisUrl, REDIS_PREFIX: prefix, CONTROL_PLANE_URL: controlPlane.url, BODY_LIMIT_BYTES: String(BODY_LIMIT), ...INTERNAL }), silent);
});

afterAll(async () => {
  await proxy?.close();
  const redis = controlPlane?.services.redis;
  const keys = redis ? await redis.keys(`${controlPlane.services.config.REDIS_PREFIX}:*`) : [];
  if (keys.length) await redis!.del(...keys);
  await controlPlane?.close();
  await simulator?.close();
  await database?.drop();
});

describe("the vendor API on the proxy's address", () => {
  it("mints a key through the proxy, and the key works there at once", async () => {
    const minted = await call(proxy.url, "POST", "/api/keys", { headers: json(token), body: JSON.stringify({ server_option: "standard", name: "one address" }) });
    expect(minted.status).toBe(201);
    const key = JSON.parse(minted.text) as { key: string };
    expect(key.key).toMatch(/^sk-/);
    const chat = await call(proxy.url, "POST", "/v1/chat/completions", { headers: json(key.key), body: JSON.stringify({ model: "gpt-test", messages: [{ role: "user", content: "hi" }] }) });
    expect(chat.status).toBe(200);
    expect(JSON.parse(chat.text)).toMatchObject({ object: "chat.completion" });

    const options = await call(proxy.url, "GET", "/api/server-options", { headers: bearer(token) });
    expect(options.status).toBe(200);
    expect(JSON.parse(options.text)).toMatchObject({ object: "list", data: expect.arrayContaining([expect.objectContaining({ name: "standard" })]) });
  });

  it.each([
    ["401, bad token", "GET", "/api/keys", () => bearer("vt_not-a-token"), undefined, 401],
    ["403, missing scope", "POST", "/api/keys", () => json(readOnlyToken), JSON.stringify({ server_option: "standard", name: "x" }), 403],
    ["404, unknown key", "GET", "/api/keys/key_unknown", () => bearer(token), undefined, 404],
    ["404, unknown route", "GET", "/api/nothing-here", () => bearer(token), undefined, 404],
  ])("passes the control plane's %s through byte for byte, with the client's request id", async (_name, method, path, headers, body, status) => {
    const relayed = await call(proxy.url, method, path, { headers: headers(), body });
    const direct = await call(controlPlane.url, method, path, { headers: headers(), body });
    expect([relayed.status, direct.status]).toEqual([status, status]);
    const relayedId = relayed.headers["x-request-id"] as string;
    expect(JSON.parse(relayed.text).request_id).toBe(relayedId);
    // Byte-identical but for the id, which is the proxy's: the control plane used it.
    expect(relayed.text.replace(relayedId, direct.headers["x-request-id"] as string)).toBe(direct.text);
    expect(relayed.headers["content-type"]).toBe(direct.headers["content-type"]);
  });

  it("passes a large response body through unchanged", async () => {
    const relayed = await call(proxy.url, "GET", "/api/openapi.json");
    const direct = await call(controlPlane.url, "GET", "/api/openapi.json");
    expect(relayed.status).toBe(200);
    expect(relayed.body.length).toBeGreaterThan(4096);
    expect(relayed.body.equals(direct.body)).toBe(true);
  });

  it("counts the relayed requests under their pattern, never the raw path", async () => {
    const metrics = (await call(proxy.metricsHttp!.url, "GET", "/metrics")).text;
    expect(metrics).toMatch(/gateway_http_requests_total\{route="\/api\/\*",method="POST",status="201"/);
    expect(metrics).not.toMatch(/route="\/api\/keys/);
  });

  it("refuses a body over the limit, declared or streamed", async () => {
    const big = Buffer.alloc(BODY_LIMIT + 1, " ").toString();
    const declared = { ...json(token), "content-length": String(big.length) };
    expectEnvelope(await call(proxy.url, "POST", "/api/keys", { headers: declared, body: big }), 413, "request_too_large", "request_too_large");
    const chunked = Array.from({ length: 8 }, () => Buffer.alloc(BODY_LIMIT / 4, " "));
    expectEnvelope(await call(proxy.url, "POST", "/api/keys", { headers: json(token), body: chunked }), 413, "request_too_large", "request_too_large");
  });

  it("never reaches /internal/*, by any spelling, even with the internal token", async () => {
    const keyId = (await controlPlane.services.db.prisma.apiKey.findFirstOrThrow()).id;
    const headers = { "x-internal-token": INTERNAL.INTERNAL_TOKEN };
    expect((await call(controlPlane.url, "GET", `/internal/keys/${keyId}/usage`, { headers })).status).toBe(200);
    const spellings = ["/internal", "/INTERNAL", "/%69nternal", "//internal", "/api/../internal", "/api/%2e%2e/internal", "/api/..%2finternal", "/console/../internal", "/api/./../internal"];
    for (const spelling of spellings) {
      const answer = await call(proxy.url, "GET", `${spelling}/keys/${keyId}/usage`, { headers });
      expectEnvelope(answer, 404, "not_found_error", "route_not_found");
    }
  });
});

describe("a control plane that is down", () => {
  it("answers 503 on /api/* when the control plane is down, while /v1/* keeps serving", async () => {
    const minted = await call(proxy.url, "POST", "/api/keys", { headers: json(token), body: JSON.stringify({ server_option: "standard", name: "before" }) });
    const { key } = JSON.parse(minted.text) as { key: string };
    await controlPlane.http.close(1_000);
    expectEnvelope(await call(proxy.url, "GET", "/api/keys", { headers: bearer(token) }), 503, "overloaded_error", "control_plane_unavailable");
    expect((await call(proxy.url, "GET", "/v1/models", { headers: bearer(key) })).status).toBe(200);
  });
});
