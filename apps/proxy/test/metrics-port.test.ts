// /metrics names every tenant's traffic and the upstreams: it leaves the serving port (which
// clients and the internet reach) for METRICS_PORT on loopback, unless METRICS_PUBLIC (contract
// section 14).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "@gateway/logger";
import { freePort, resolveTestServices } from "@gateway/testing";
import { loadProxyConfig } from "../src/config.ts";
import { startProxy } from "../src/server.ts";
import { startStack, type Stack } from "./stack.ts";

let stack: Stack;
let metricsPort: number;
beforeAll(async () => {
  metricsPort = await freePort();
  stack = await startStack({ METRICS_PORT: String(metricsPort) });
});
afterAll(async () => stack?.close());

describe("METRICS_PORT", () => {
  it("defaults to port 9090 on loopback, off the serving port, and TRUST_PROXY to loopback only", () => {
    const config = loadProxyConfig({});
    expect([config.METRICS_PORT, config.METRICS_HOST, config.METRICS_PUBLIC]).toEqual([9090, "127.0.0.1", false]);
    expect(config.TRUST_PROXY).toEqual(["loopback"]);
  });

  it("serves /metrics on its own port only; the serving port answers 404 there", async () => {
    const { key } = await stack.mintKey();
    await fetch(`${stack.proxy.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
    const hidden = await fetch(`${stack.proxy.url}/metrics`);
    expect(hidden.status).toBe(404);
    expect(((await hidden.json()) as { error: { type: string } }).error.type).toBe("not_found_error");
    expect(stack.proxy.metricsHttp!.url).toBe(`http://127.0.0.1:${metricsPort}`);
    const shown = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(shown.status).toBe(200);
    expect(await shown.text()).toMatch(/gateway_http_requests_total\{route="\/v1\/models",method="GET",status="200",app="proxy"\} 1/);
    const other = await fetch(`http://127.0.0.1:${metricsPort}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
    expect(other.status).toBe(404);
    expect(((await other.json()) as { request_id: string }).request_id).toMatch(/^req_/);
  });

  it("with METRICS_PUBLIC=true, serves /metrics on the serving port too", async () => {
    const { redisUrl } = await resolveTestServices();
    const config = loadProxyConfig({ PORT: "0", METRICS_PORT: "0", METRICS_PUBLIC: "true", REDIS_URL: redisUrl, REDIS_PREFIX: stack.prefix });
    const proxy = await startProxy(config, createLogger({ name: "test", level: "silent" }));
    try {
      const onServingPort = await fetch(`${proxy.url}/metrics`);
      expect(onServingPort.status).toBe(200);
      expect(await onServingPort.text()).toMatch(/^# HELP /m);
      expect((await fetch(`${proxy.metricsHttp!.url}/metrics`)).status).toBe(200);
    } finally {
      await proxy.close();
    }
  });
});
