import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readUpstreamHealth } from "@gateway/redis-store";
import { startStack, type Stack } from "./stack.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => stack?.close());

/**
 * The value of the one series of `name` whose labels include `labels` (null when none; the label
 * order of the text is prom-client's). Throws when several match.
 */
function series(text: string, name: string, labels: Record<string, string>): number | null {
  const matches = text.split("\n").filter((line) => {
    if (!line.startsWith(`${name}{`)) return false;
    const inner = line.slice(name.length + 1, line.lastIndexOf("}"));
    return Object.entries(labels).every(([label, value]) => inner.split(/,(?=[a-z_]+=")/).includes(`${label}="${value}"`));
  });
  if (matches.length > 1) throw new Error(`several series of ${name} match ${JSON.stringify(labels)}: ${matches.join(" | ")}`);
  return matches.length === 0 ? null : Number(matches[0]!.slice(matches[0]!.lastIndexOf(" ") + 1));
}

/** Every label value of every series in the text. */
function labelValues(text: string): string[] {
  return [...text.matchAll(/[a-z_]+="((?:[^"\\]|\\.)*)"/g)].map((match) => match[1]!);
}

describe("GET /metrics", () => {
  let text: string;
  let key: { id: string; key: string };

  beforeAll(async () => {
    key = await stack.mintKey();
    stack.simulator.faults.push({ match: { model: "gpt-upstream-a" }, times: 1, behaviour: { failStatus: 503 } });
    const send = (path: string, body: Record<string, unknown>) =>
      fetch(`${stack.proxy.url}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${key.key}`, "anthropic-version": "2023-06-01", "content-type": "application/json" },
        body: JSON.stringify(body),
      }).then(async (response) => ({ status: response.status, text: await response.text() }));
    // A failover (503 on sim-openai-a, then sim-openai-b), a stream, an Anthropic-shape answer, a
    // bad body, and a model nobody configured (it must not become a label value).
    expect((await send("/v1/chat/completions", { model: "gpt-test", messages: [{ role: "user", content: "hi" }] })).status).toBe(200);
    expect((await send("/v1/chat/completions", { model: "gpt-test", stream: true, messages: [{ role: "user", content: "hi #sim:cached=2" }] })).status).toBe(200);
    expect((await send("/v1/messages", { model: "claude-test", max_tokens: 32, messages: [{ role: "user", content: "hi" }] })).status).toBe(200);
    await fetch(`${stack.proxy.url}/v1/chat/completions`, { method: "POST", headers: { authorization: `Bearer ${key.key}`, "content-type": "application/json" }, body: "{" });
    expect((await send("/v1/chat/completions", { model: "client-invented-model", messages: [{ role: "user", content: "hi" }] })).status).toBe(404);
    await stack.proxy.services.billing.flush();
    text = await (await fetch(`${stack.proxy.metricsHttp!.url}/metrics`)).text();
  });

  it("counts requests by route, model, upstream and status, and time to first byte", () => {
    expect(series(text, "gateway_http_requests_total", { route: "/v1/chat/completions", method: "POST", status: "200" })).toBe(2);
    expect(series(text, "gateway_http_requests_total", { route: "/v1/chat/completions", method: "POST", status: "400" })).toBe(1);
    expect(series(text, "gateway_model_requests_total", { endpoint: "chat.completions", model: "gpt-test", upstream: "sim-openai-b", outcome: "ok" })).toBe(1);
    expect(series(text, "gateway_model_requests_total", { endpoint: "chat.completions", model: "gpt-test", upstream: "sim-openai-a", outcome: "ok" })).toBe(1);
    expect(series(text, "gateway_stream_ttfb_seconds_count", { endpoint: "chat.completions", model: "gpt-test", upstream: "sim-openai-a" })).toBe(1);
    expect(series(text, "gateway_billing_buffer_pending", {})).toEqual(expect.any(Number));
    expect(series(text, "gateway_redis_connected", {})).toBe(1);
  });

  it("has the GenAI metrics, labelled by operation, provider and the gateway file's model names", () => {
    const chat = { gen_ai_operation_name: "chat", gen_ai_provider_name: "openai", gen_ai_request_model: "gpt-test" };
    expect(series(text, "gen_ai_client_token_usage_count", { ...chat, gen_ai_token_type: "input" })).toBe(2);
    expect(series(text, "gen_ai_client_token_usage_count", { ...chat, gen_ai_token_type: "output" })).toBe(2);
    expect(series(text, "gen_ai_client_token_usage_sum", { ...chat, gen_ai_token_type: "input" })).toBeGreaterThan(0);
    expect(series(text, "gen_ai_client_token_usage_count", { gen_ai_operation_name: "chat", gen_ai_provider_name: "anthropic", gen_ai_request_model: "claude-test", gen_ai_token_type: "output" })).toBe(1);
    expect(series(text, "gen_ai_server_request_duration_seconds_count", { ...chat, gen_ai_response_model: "gpt-upstream-b" })).toBe(1);
    expect(series(text, "gen_ai_server_request_duration_seconds_count", { ...chat, gen_ai_response_model: "gpt-upstream-a" })).toBe(1);
    expect(series(text, "gen_ai_server_request_duration_seconds_count", { gen_ai_provider_name: "anthropic", gen_ai_response_model: "claude-upstream-a" })).toBe(1);
    // Time to first token: streams only.
    expect(series(text, "gen_ai_server_time_to_first_token_seconds_count", { ...chat, gen_ai_response_model: "gpt-upstream-a" })).toBe(1);
    expect(series(text, "gen_ai_server_time_to_first_token_seconds_count", { ...chat, gen_ai_response_model: "gpt-upstream-b" })).toBeNull();
    expect(series(text, "gateway_cost_usd_total", { model: "gpt-test", server_option: "standard" })).toBeGreaterThan(0);
    expect(series(text, "gateway_cost_usd_total", { model: "claude-test", server_option: "standard" })).toBeGreaterThan(0);
  });

  it("has per-upstream health: attempts by cause, attempt latency and time to first byte, circuit state", () => {
    expect(series(text, "gateway_upstream_attempts_total", { upstream: "sim-openai-a", cause: "http_5xx" })).toBe(1);
    expect(series(text, "gateway_upstream_attempts_total", { upstream: "sim-openai-a", cause: "ok" })).toBe(1);
    expect(series(text, "gateway_upstream_attempts_total", { upstream: "sim-openai-b", cause: "ok" })).toBe(1);
    expect(series(text, "gateway_upstream_attempts_total", { upstream: "sim-anthropic-a", cause: "ok" })).toBe(1);
    expect(series(text, "gateway_upstream_attempt_duration_seconds_count", { upstream: "sim-openai-a" })).toBe(2);
    // The failed attempt got no answer: only the stream's first event is timed on sim-openai-a.
    expect(series(text, "gateway_upstream_ttfb_seconds_count", { upstream: "sim-openai-a" })).toBe(1);
    expect(series(text, "gateway_upstream_ttfb_seconds_count", { upstream: "sim-openai-b" })).toBe(1);
    expect(series(text, "gateway_upstream_circuit_state", { upstream: "sim-openai-a" })).toBe(0);
    expect(series(text, "gateway_upstream_circuit_state", { upstream: "sim-anthropic-a" })).toBe(0);
  });

  it("never names a key, nor a model a client made up", () => {
    expect(text).not.toContain(key.key);
    expect(text).not.toContain(key.id);
    expect(labelValues(text)).not.toContain("client-invented-model");
    for (const value of labelValues(text)) expect(value).not.toMatch(/^(key_|sk-)/);
  });

  it("without an OTLP endpoint makes no span, and the upstream still gets the trace context", () => {
    expect(stack.proxy.services.tracing.enabled).toBe(false);
    expect(stack.simulator.stats.requests.at(-1)!.headers.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
  });

  it("publishes each upstream's last minute to Redis for the console", async () => {
    await stack.proxy.services.upstreamHealth.publish();
    const processes = await readUpstreamHealth(stack.controlPlane.redis, stack.prefix);
    const mine = processes.find((entry) => entry.processId === stack.proxy.services.upstreamHealth.processId)!;
    expect(mine.snapshot.at).toBeGreaterThan(Date.now() - 10_000);
    expect(mine.snapshot.upstreams["sim-openai-a"]).toMatchObject({ attempts: 2, failures: { http_5xx: 1 }, circuit: "closed" });
    expect(mine.snapshot.upstreams["sim-openai-a"]!.p50Ms).toEqual(expect.any(Number));
    expect(mine.snapshot.upstreams["sim-openai-a"]!.p99Ms).toBeGreaterThanOrEqual(mine.snapshot.upstreams["sim-openai-a"]!.p50Ms!);
    expect(mine.snapshot.upstreams["sim-openai-a"]!.ttfbP50Ms).toEqual(expect.any(Number));
    expect(mine.snapshot.upstreams["sim-openai-b"]).toMatchObject({ attempts: 1, failures: {}, circuit: "closed" });
  });
});
