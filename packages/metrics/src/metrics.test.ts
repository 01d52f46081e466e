import { describe, expect, it } from "vitest";
import express from "express";
import { createRegistry, httpMetrics, metricsHandler } from "./index.ts";

describe("metrics", () => {
  it("counts requests by route pattern and serves the Prometheus text", async () => {
    const registry = createRegistry("test");
    const app = express();
    app.use(httpMetrics(registry));
    app.get("/things/:id", (_request, response) => void response.json({ ok: true }));
    app.get("/metrics", metricsHandler(registry));
    const server = app.listen(0);
    await new Promise((resolve) => server.once("listening", resolve));
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    await fetch(`${base}/things/1`);
    await fetch(`${base}/things/2`);
    await fetch(`${base}/missing`);
    const text = await (await fetch(`${base}/metrics`)).text();
    server.close();
    expect(text).toMatch(/gateway_http_requests_total\{route="\/things\/:id",method="GET",status="200",app="test"\} 2/);
    expect(text).toMatch(/gateway_http_requests_total\{route="unmatched",method="GET",status="404",app="test"\} 1/);
    expect(text).toMatch(/process_cpu_user_seconds_total/);
  });
});
