import { describe, expect, it } from "vitest";
import express from "express";
import { childCache, Counter, counterChildren, createRegistry, Histogram, histogramChildren, httpMetrics, LATENCY_BUCKETS, metricsHandler, Registry } from "./index.ts";

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

describe("in-place label children", () => {
  it("are one child per label set, made once with exactly its labels, whatever the label count", () => {
    const made: string[][] = [];
    const childFor = childCache((values) => {
      made.push(values);
      return { values };
    });
    const first = childFor("chat", "gpt", "up-a", "ok");
    expect(childFor("chat", "gpt", "up-a", "ok")).toBe(first);
    expect(childFor("chat", "gpt", "up-a", "error")).not.toBe(first);
    expect(childFor("chat", "gpt", "up-aok")).not.toBe(first);
    expect(childFor("x", "y")).toBe(childFor("x", "y"));
    expect(childFor("x", "y")).not.toBe(childFor("xy"));
    expect(made).toEqual([["chat", "gpt", "up-a", "ok"], ["chat", "gpt", "up-a", "error"], ["chat", "gpt", "up-aok"], ["x", "y"], ["xy"]]);
  });

  it("give exactly the Prometheus text of prom-client's own children, for counters and histograms", async () => {
    const observations: [string, string, number][] = [
      ["a", "ok", 0.0004], ["a", "ok", 0.003], ["b", "error", 7], ["a", "ok", 0.25], ["b", "error", 250], ["a", "ok", 0.0025], ["c", "ok", 0],
    ];
    const render = async (fast: boolean) => {
      const registry = new Registry();
      const counter = new Counter({ name: "t_total", help: "t", labelNames: ["route", "status"], registers: [registry] });
      const histogram = new Histogram({ name: "t_seconds", help: "t", labelNames: ["route", "status"], buckets: LATENCY_BUCKETS, registers: [registry] });
      const counterFor = fast ? counterChildren(counter) : (...values: string[]) => counter.labels(...values);
      const histogramFor = fast ? histogramChildren(histogram) : (...values: string[]) => histogram.labels(...values);
      for (const [route, status, seconds] of observations) {
        counterFor(route, status).inc();
        histogramFor(route, status).observe(seconds);
      }
      return registry.metrics();
    };
    const expected = await render(false);
    // The figures are really there (a series per label set, the sum, the +Inf bucket)...
    expect(expected).toMatch(/t_total\{route="a",status="ok"\} 4\n/);
    expect(expected).toMatch(/t_seconds_bucket\{le="\+Inf",route="b",status="error"\} 2\n/);
    expect(expected).toMatch(/t_seconds_sum\{route="b",status="error"\} 257\n/);
    // ...and the in-place children produce the same text, byte for byte.
    expect(await render(true)).toBe(expected);
  });

  it("go through prom-client only to create a series (its state is where the in-place path expects it)", () => {
    const counter = new Counter({ name: "u_total", help: "u", labelNames: ["route"], registers: [] });
    const histogram = new Histogram({ name: "u_seconds", help: "u", labelNames: ["route"], buckets: [0.1, 1], registers: [] });
    let counterCalls = 0;
    let histogramCalls = 0;
    // Count what reaches prom-client's own children.
    const counterLabels = counter.labels.bind(counter);
    counter.labels = ((...values: string[]) => {
      const child = counterLabels(...values);
      return { inc: (value?: number) => ((counterCalls += 1), child.inc(value)) };
    }) as typeof counter.labels;
    const histogramLabels = histogram.labels.bind(histogram);
    histogram.labels = ((...values: string[]) => {
      const child = histogramLabels(...values);
      return { ...child, observe: (value: number) => ((histogramCalls += 1), child.observe(value)) };
    }) as typeof histogram.labels;
    const counterFor = counterChildren(counter);
    const histogramFor = histogramChildren(histogram);
    for (let i = 0; i < 100; i += 1) {
      counterFor("r").inc();
      histogramFor("r").observe(0.5);
    }
    expect([counterCalls, histogramCalls]).toEqual([1, 1]);
  });
});
