import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack, type Stack } from "./stack.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => stack?.close());

describe("GET /metrics", () => {
  it("counts requests by route, model, upstream and status, attempts and failovers, and time to first byte", async () => {
    const { key } = await stack.mintKey();
    stack.simulator.faults.push({ match: { model: "gpt-upstream-a" }, times: 1, behaviour: { failStatus: 503 } });
    const send = (stream: boolean) =>
      fetch(`${stack.proxy.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "gpt-test", stream, messages: [{ role: "user", content: "hi" }] }),
      }).then((response) => response.text());
    await send(false);
    await send(true);
    await fetch(`${stack.proxy.url}/v1/chat/completions`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: "{" });
    const text = await (await fetch(`${stack.proxy.metricsHttp!.url}/metrics`)).text();
    expect(text).toMatch(/gateway_http_requests_total\{route="\/v1\/chat\/completions",method="POST",status="200",app="proxy"\} 2/);
    expect(text).toMatch(/gateway_http_requests_total\{route="\/v1\/chat\/completions",method="POST",status="400",app="proxy"\} 1/);
    expect(text).toMatch(/gateway_model_requests_total\{endpoint="chat.completions",model="gpt-test",upstream="sim-openai-b",outcome="ok",app="proxy"\} 1/);
    expect(text).toMatch(/gateway_model_requests_total\{endpoint="chat.completions",model="gpt-test",upstream="sim-openai-a",outcome="ok",app="proxy"\} 1/);
    expect(text).toMatch(/gateway_upstream_attempts_total\{upstream="sim-openai-a",result="failure",app="proxy"\} 1/);
    expect(text).toMatch(/gateway_stream_ttfb_seconds_count\{app="proxy",endpoint="chat.completions",model="gpt-test",upstream="sim-openai-a"\} 1/);
    expect(text).toMatch(/gateway_billing_buffer_pending\{app="proxy"\} \d+/);
    expect(text).not.toContain(key);
  });
});
