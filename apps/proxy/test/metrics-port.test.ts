// METRICS_PORT: the metrics leave the serving port (which clients and the internet reach).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "@gateway/testing";
import { startStack, type Stack } from "./stack.ts";

let stack: Stack;
let metricsPort: number;
beforeAll(async () => {
  metricsPort = await freePort();
  stack = await startStack({ METRICS_PORT: String(metricsPort) });
});
afterAll(async () => stack?.close());

describe("METRICS_PORT", () => {
  it("serves /metrics on its own port only; the serving port answers 404 there", async () => {
    const { key } = await stack.mintKey();
    await fetch(`${stack.proxy.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
    const hidden = await fetch(`${stack.proxy.url}/metrics`);
    expect(hidden.status).toBe(404);
    expect(((await hidden.json()) as { error: { type: string } }).error.type).toBe("not_found_error");
    const shown = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(shown.status).toBe(200);
    expect(await shown.text()).toMatch(/gateway_http_requests_total\{route="\/v1\/models",method="GET",status="200",app="proxy"\} 1/);
    const other = await fetch(`http://127.0.0.1:${metricsPort}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
    expect(other.status).toBe(404);
    expect(((await other.json()) as { request_id: string }).request_id).toMatch(/^req_/);
  });
});
