import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import OpenAI from "openai";
import type { BillingEvent } from "@gateway/contracts";
import { startStack, type Stack } from "./stack.ts";
import { attributesOf, SPAN_KIND_CLIENT, SPAN_KIND_SERVER, startOtlpReceiver, type ExportedSpan } from "./otlp-receiver.ts";

/**
 * Contract section 20's traces, read from a local OTLP/HTTP receiver: one span per model request in
 * the OpenTelemetry GenAI conventions, one CLIENT child per upstream attempt (whose context the
 * upstream receives), on both shapes, streamed and not, translated, and through a failover.
 */
let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
let stack: Stack;
let key: { id: string; key: string };

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  stack = await startStack({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
  key = await stack.mintKey();
});
afterAll(async () => {
  await stack?.close();
  receiver?.close();
});

interface Traced {
  status: number;
  text: string;
  traceId: string;
  clientParent: string;
  requestId: string;
  server: ExportedSpan;
  attempts: ExportedSpan[];
  event: BillingEvent;
}

/** One request with a fresh client trace; its spans once exported (a server span, then `attempts` client spans). */
async function traced(path: string, body: Record<string, unknown>, attempts = 1, extraHeaders: Record<string, string> = {}): Promise<Traced> {
  const traceId = randomBytes(16).toString("hex");
  const clientParent = randomBytes(8).toString("hex");
  const anthropic = path === "/v1/messages";
  const auth: Record<string, string> = anthropic ? { "x-api-key": key.key, "anthropic-version": "2023-06-01" } : { authorization: `Bearer ${key.key}` };
  const response = await fetch(`${stack.proxy.url}${path}`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json", traceparent: `00-${traceId}-${clientParent}-01`, ...extraHeaders },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  const requestId = response.headers.get("x-request-id")!;
  const ofTrace = () => receiver.spans.filter((span) => span.traceId === traceId);
  await expect.poll(() => ofTrace().length, { timeout: 5_000, interval: 100 }).toBe(1 + attempts);
  const spans = ofTrace();
  const server = spans.find((span) => span.kind === SPAN_KIND_SERVER)!;
  const children = spans.filter((span) => span.kind === SPAN_KIND_CLIENT).sort((a, b) => Number(attributesOf(a)["gateway.attempt"]) - Number(attributesOf(b)["gateway.attempt"]));
  const [event] = await stack.billingEvents(requestId);
  return { status: response.status, text, traceId, clientParent, requestId, server, attempts: children, event: event! };
}

/** What every request span carries, whatever its shape. */
function expectRequestSpan(result: Traced, expected: { name: string; model: string; provider: string; upstream: string; upstreamModel: string; stream: boolean; serverOption?: string }): Record<string, unknown> {
  const { server, event } = result;
  const attributes = attributesOf(server);
  expect(server.name).toBe(expected.name);
  expect(server.parentSpanId).toBe(result.clientParent);
  expect(attributes).toMatchObject({
    "gen_ai.operation.name": "chat",
    "gen_ai.provider.name": expected.provider,
    "gen_ai.request.model": expected.model,
    "gen_ai.request.stream": expected.stream,
    "gen_ai.response.model": expected.upstreamModel,
    "gen_ai.usage.input_tokens": event.usage.inputTokens,
    "gen_ai.usage.output_tokens": event.usage.outputTokens,
    "gen_ai.usage.cache_read.input_tokens": event.usage.cachedInputTokens,
    "gen_ai.usage.cache_creation.input_tokens": event.usage.cacheWriteTokens,
    "gen_ai.usage.reasoning.output_tokens": event.usage.reasoningTokens,
    "gateway.key_id": key.id,
    "gateway.vendor_id": event.vendorId,
    "gateway.server_option": expected.serverOption ?? "standard",
    "gateway.upstream": expected.upstream,
    "gateway.upstream_model": expected.upstreamModel,
    "gateway.outcome": "ok",
    "gateway.estimated": false,
    "gateway.request_id": result.requestId,
  });
  expect(attributes["gen_ai.response.id"]).toEqual(expect.any(String));
  expect(attributes["gen_ai.response.finish_reasons"]).toEqual([expect.any(String)]);
  expect(attributes["gateway.cost_usd"]).toBeGreaterThan(0);
  expect(attributes["gateway.attempts"]).toBe(event.attempts!.length);
  if (expected.stream) expect(attributes["gen_ai.response.time_to_first_chunk"]).toBeCloseTo(event.ttfbMs! / 1000, 3);
  else expect(attributes["gen_ai.response.time_to_first_chunk"]).toBeUndefined();
  // Never the deprecated name, and no content unless OTEL_CAPTURE_CONTENT=true.
  expect(attributes["gen_ai.system"]).toBeUndefined();
  for (const name of ["gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.system_instructions"]) expect(attributes[name]).toBeUndefined();
  return attributes;
}

/** An attempt's span: a CLIENT child of the request's, the parent the upstream was told of. */
function expectAttemptSpan(result: Traced, span: ExportedSpan, expected: { number: number; provider: string; upstream: string; upstreamModel: string; cause: string; status: number }): Record<string, unknown> {
  const attributes = attributesOf(span);
  expect(span.parentSpanId).toBe(result.server.spanId);
  expect(span.name).toBe(`chat ${expected.upstreamModel}`);
  expect(attributes).toMatchObject({
    "gen_ai.operation.name": "chat",
    "gen_ai.provider.name": expected.provider,
    "gen_ai.request.model": expected.upstreamModel,
    "gateway.upstream": expected.upstream,
    "gateway.attempt": expected.number,
    "gateway.attempt.cause": expected.cause,
    "http.response.status_code": expected.status,
    "server.address": "127.0.0.1",
  });
  expect(attributes["server.port"]).toEqual(expect.any(Number));
  return attributes;
}

/** The traceparent the upstream received for the attempt whose span this is. */
function upstreamSawAttempt(result: Traced, span: ExportedSpan, upstreamRequestIndex = -1): void {
  const seen = stack.simulator.stats.requests.at(upstreamRequestIndex)!.headers.traceparent;
  expect(seen).toBe(`00-${result.traceId}-${span.spanId}-01`);
}

describe("GenAI spans, OpenAI shape", () => {
  it("a JSON answer: the request's span in the conventions and its attempt's span, whose context the upstream receives", async () => {
    const result = await traced("/v1/chat/completions", { model: "gpt-test", max_tokens: 50, temperature: 0.5, top_p: 0.9, messages: [{ role: "user", content: "trace me #sim:cached=3 #sim:reasoning=2" }] });
    expect(result.status).toBe(200);
    upstreamSawAttempt(result, result.attempts[0]!);
    const attributes = expectRequestSpan(result, { name: "chat gpt-test", model: "gpt-test", provider: "openai", upstream: "sim-openai-a", upstreamModel: "gpt-upstream-a", stream: false });
    expect(attributes).toMatchObject({ "gen_ai.request.max_tokens": 50, "gen_ai.request.temperature": 0.5, "gen_ai.request.top_p": 0.9, "gen_ai.response.finish_reasons": ["stop"] });
    expect(attributes["gen_ai.usage.cache_read.input_tokens"]).toBe(3);
    expect(attributes["gen_ai.usage.reasoning.output_tokens"]).toBe(2);
    expect(String(attributes["gen_ai.response.id"])).toBe((JSON.parse(result.text) as { id: string }).id);
    const attempt = expectAttemptSpan(result, result.attempts[0]!, { number: 1, provider: "openai", upstream: "sim-openai-a", upstreamModel: "gpt-upstream-a", cause: "ok", status: 200 });
    expect(attempt["gen_ai.response.id"]).toBe(attributes["gen_ai.response.id"]);
    expect(attempt["gen_ai.usage.output_tokens"]).toBe(result.event.usage.outputTokens);
    expect(result.attempts[0]!.status?.code ?? 0).not.toBe(2);
  });

  it("a stream: time to first chunk, finish reason and id read from the chunks", async () => {
    const result = await traced("/v1/chat/completions", { model: "gpt-test", stream: true, messages: [{ role: "user", content: "stream me" }] });
    expect(result.status).toBe(200);
    upstreamSawAttempt(result, result.attempts[0]!);
    const attributes = expectRequestSpan(result, { name: "chat gpt-test", model: "gpt-test", provider: "openai", upstream: "sim-openai-a", upstreamModel: "gpt-upstream-a", stream: true });
    expect(attributes["gen_ai.response.finish_reasons"]).toEqual(["stop"]);
    expect(String(attributes["gen_ai.response.id"])).toMatch(/^chatcmpl-/);
    const attempt = expectAttemptSpan(result, result.attempts[0]!, { number: 1, provider: "openai", upstream: "sim-openai-a", upstreamModel: "gpt-upstream-a", cause: "ok", status: 200 });
    expect(attempt["gen_ai.response.time_to_first_chunk"]).toEqual(expect.any(Number));
  });

  it("a failover: two attempt spans, the failed one with its status and cause, the upstream told of the second", async () => {
    stack.simulator.faults.push({ match: { model: "gpt-upstream-a" }, times: 1, behaviour: { failStatus: 503 } });
    const result = await traced("/v1/chat/completions", { model: "gpt-test", messages: [{ role: "user", content: "fail over" }] }, 2);
    expect(result.status).toBe(200);
    expectRequestSpan(result, { name: "chat gpt-test", model: "gpt-test", provider: "openai", upstream: "sim-openai-b", upstreamModel: "gpt-upstream-b", stream: false });
    expect(attributesOf(result.server)["gateway.attempts"]).toBe(2);
    const failed = expectAttemptSpan(result, result.attempts[0]!, { number: 1, provider: "openai", upstream: "sim-openai-a", upstreamModel: "gpt-upstream-a", cause: "http_5xx", status: 503 });
    expect(failed["error.type"]).toBe("http_5xx");
    expect(result.attempts[0]!.status?.code).toBe(2);
    expectAttemptSpan(result, result.attempts[1]!, { number: 2, provider: "openai", upstream: "sim-openai-b", upstreamModel: "gpt-upstream-b", cause: "ok", status: 200 });
    upstreamSawAttempt(result, result.attempts[1]!, -1);
    upstreamSawAttempt(result, result.attempts[0]!, -2);
  });

  it("continues the client's trace through the OpenAI SDK", async () => {
    const openai = new OpenAI({ baseURL: `${stack.proxy.url}/v1`, apiKey: key.key, maxRetries: 0 });
    const traceId = "0af7651916cd43dd8448eb211c80319c";
    await openai.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "trace me" }] }, { headers: { traceparent: `00-${traceId}-b7ad6b7169203331-01` } });
    await expect.poll(() => receiver.spans.filter((span) => span.traceId === traceId).length, { timeout: 5_000, interval: 100 }).toBe(2);
    const server = receiver.spans.find((span) => span.traceId === traceId && span.kind === SPAN_KIND_SERVER)!;
    expect(server.parentSpanId).toBe("b7ad6b7169203331");
  });
});

describe("GenAI spans, Responses API", () => {
  for (const stream of [false, true]) {
    it(`${stream ? "a stream" : "a JSON answer"} on /v1/responses: the response's id, and its status as the finish reason`, async () => {
      const result = await traced("/v1/responses", { model: "gpt-test", stream, max_output_tokens: 40, input: "respond" });
      expect(result.status).toBe(200);
      upstreamSawAttempt(result, result.attempts[0]!);
      const attributes = expectRequestSpan(result, { name: "chat gpt-test", model: "gpt-test", provider: "openai", upstream: "sim-openai-a", upstreamModel: "gpt-upstream-a", stream });
      expect(attributes["gen_ai.request.max_tokens"]).toBe(40);
      expect(String(attributes["gen_ai.response.id"])).toMatch(/^resp_/);
      expect(attributes["gen_ai.response.finish_reasons"]).toEqual(["completed"]);
    });
  }
});

describe("GenAI spans, Anthropic shape", () => {
  for (const stream of [false, true]) {
    it(`${stream ? "a stream" : "a JSON answer"} on /v1/messages: provider anthropic, the message's id and stop reason`, async () => {
      const result = await traced("/v1/messages", { model: "claude-test", max_tokens: 64, stream, messages: [{ role: "user", content: "hello claude" }] });
      expect(result.status).toBe(200);
      upstreamSawAttempt(result, result.attempts[0]!);
      const attributes = expectRequestSpan(result, { name: "chat claude-test", model: "claude-test", provider: "anthropic", upstream: "sim-anthropic-a", upstreamModel: "claude-upstream-a", stream });
      expect(attributes["gen_ai.request.max_tokens"]).toBe(64);
      expect(String(attributes["gen_ai.response.id"])).toMatch(/^msg_/);
      expect(attributes["gen_ai.response.finish_reasons"]).toEqual(["end_turn"]);
      expectAttemptSpan(result, result.attempts[0]!, { number: 1, provider: "anthropic", upstream: "sim-anthropic-a", upstreamModel: "claude-upstream-a", cause: "ok", status: 200 });
    });
  }
});

describe("GenAI spans, translated", () => {
  beforeAll(async () => {
    key = await stack.mintKey({ serverOption: "cross-shape" });
  });
  afterAll(async () => {
    key = await stack.mintKey();
  });

  for (const stream of [false, true]) {
    it(`${stream ? "a stream" : "a JSON answer"} from /v1/messages to an OpenAI-shape upstream: the upstream's provider, id and finish reason`, async () => {
      const result = await traced("/v1/messages", { model: "claude-on-openai", max_tokens: 64, stream, messages: [{ role: "user", content: "translate me" }] });
      expect(result.status).toBe(200);
      upstreamSawAttempt(result, result.attempts[0]!);
      const attributes = expectRequestSpan(result, { name: "chat claude-on-openai", model: "claude-on-openai", provider: "openai", upstream: "sim-openai-a", upstreamModel: "claude-via-openai-a", stream, serverOption: "cross-shape" });
      expect(String(attributes["gen_ai.response.id"])).toMatch(/^chatcmpl-/);
      expect(attributes["gen_ai.response.finish_reasons"]).toEqual(["stop"]);
      expectAttemptSpan(result, result.attempts[0]!, { number: 1, provider: "openai", upstream: "sim-openai-a", upstreamModel: "claude-via-openai-a", cause: "ok", status: 200 });
    });
  }

  it("a stream from /v1/chat/completions to an Anthropic-shape upstream", async () => {
    const result = await traced("/v1/chat/completions", { model: "gpt-on-anthropic", stream: true, messages: [{ role: "user", content: "translate me" }] });
    expect(result.status).toBe(200);
    upstreamSawAttempt(result, result.attempts[0]!);
    const attributes = expectRequestSpan(result, { name: "chat gpt-on-anthropic", model: "gpt-on-anthropic", provider: "anthropic", upstream: "sim-anthropic-a", upstreamModel: "gpt-via-anthropic-a", stream: true, serverOption: "cross-shape" });
    expect(attributes["gen_ai.response.finish_reasons"]).toEqual(["end_turn"]);
    expect(String(attributes["gen_ai.response.id"])).toMatch(/^msg_/);
    expectAttemptSpan(result, result.attempts[0]!, { number: 1, provider: "anthropic", upstream: "sim-anthropic-a", upstreamModel: "gpt-via-anthropic-a", cause: "ok", status: 200 });
  });
});

describe("prompt and completion content", () => {
  let contentStack: Stack;
  let contentReceiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  beforeAll(async () => {
    contentReceiver = await startOtlpReceiver();
    contentStack = await startStack({ OTEL_EXPORTER_OTLP_ENDPOINT: contentReceiver.url, OTEL_CAPTURE_CONTENT: "true" });
  });
  afterAll(async () => {
    await contentStack?.close();
    contentReceiver?.close();
  });

  it("are on the request's span only with OTEL_CAPTURE_CONTENT=true, in the conventions' message schema", async () => {
    const { key: secret } = await contentStack.mintKey();
    const traceId = randomBytes(16).toString("hex");
    const response = await fetch(`${contentStack.proxy.url}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": secret, "anthropic-version": "2023-06-01", "content-type": "application/json", traceparent: `00-${traceId}-${randomBytes(8).toString("hex")}-01` },
      body: JSON.stringify({ model: "claude-test", max_tokens: 64, stream: true, system: "be brief", messages: [{ role: "user", content: "what is in the box?" }] }),
    });
    const text = await response.text();
    expect(response.status).toBe(200);
    await expect.poll(() => contentReceiver.spans.filter((span) => span.traceId === traceId).length, { timeout: 5_000, interval: 100 }).toBe(2);
    const server = contentReceiver.spans.find((span) => span.traceId === traceId && span.kind === SPAN_KIND_SERVER)!;
    const attributes = attributesOf(server);
    expect(JSON.parse(String(attributes["gen_ai.input.messages"]))).toEqual([{ role: "user", parts: [{ type: "text", content: "what is in the box?" }] }]);
    expect(JSON.parse(String(attributes["gen_ai.system_instructions"]))).toEqual([{ type: "text", content: "be brief" }]);
    const output = JSON.parse(String(attributes["gen_ai.output.messages"])) as { role: string; parts: { type: string; content: string }[]; finish_reason: string }[];
    expect(output[0]!.role).toBe("assistant");
    expect(output[0]!.finish_reason).toBe("end_turn");
    const streamed = [...text.matchAll(/"text":"((?:[^"\\]|\\.)*)"/g)].map((match) => JSON.parse(`"${match[1]}"`) as string).join("");
    expect(output[0]!.parts[0]!.content).toBe(streamed);
    expect(streamed.length).toBeGreaterThan(0);
  });
});
