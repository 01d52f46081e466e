import { afterAll, beforeAll, describe, expect, it } from "vitest";
import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { startStack, type Stack } from "./stack.ts";

let stack: Stack;
let openai: OpenAI;
let anthropic: Anthropic;

beforeAll(async () => {
  stack = await startStack();
  const { key } = await stack.mintKey();
  openai = new OpenAI({ baseURL: `${stack.proxy.url}/v1`, apiKey: key, maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: stack.proxy.url, apiKey: key, maxRetries: 0 });
});
afterAll(async () => stack?.close());

const lastUpstreamRequest = () => stack.simulator.stats.requests.at(-1)!;

describe("every /v1 endpoint through the official SDKs", () => {
  it("chat completions: the upstream's answer, model rewritten, usage billed once", async () => {
    const { data, response } = await openai.chat.completions
      .create({ model: "gpt-test", messages: [{ role: "user", content: "Hello there" }] })
      .withResponse();
    expect(data.object).toBe("chat.completion");
    expect(data.choices[0]!.message.content).toMatch(/\w+/);
    const upstream = lastUpstreamRequest();
    expect(upstream.model).toBe("gpt-upstream-a");
    expect(upstream.authorized).toBe(true);
    const requestId = response.headers.get("x-request-id")!;
    expect(requestId).toMatch(/^req_/);
    const events = await stack.billingEvents(requestId);
    expect(events).toHaveLength(1);
    expect(events[0]!.usage.inputTokens).toBe(upstream.usage!.input_tokens);
    expect(events[0]!.usage.outputTokens).toBe(upstream.usage!.output_tokens);
    expect(events[0]).toMatchObject({ model: "gpt-test", upstream: "sim-openai-a", upstreamModel: "gpt-upstream-a", status: "ok", estimated: false });
  });

  it("chat completions streaming: the SDK assembles the message; usage hidden unless asked, billed anyway", async () => {
    const final = await openai.chat.completions.stream({ model: "gpt-test", messages: [{ role: "user", content: "Stream please" }] }).finalChatCompletion();
    expect(final.choices[0]!.message.content).toMatch(/\w+/);

    const { data: stream, response } = await openai.chat.completions
      .create({ model: "gpt-test", messages: [{ role: "user", content: "Stream again" }], stream: true })
      .withResponse();
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks.every((chunk) => chunk.choices.length > 0)).toBe(true);
    const upstream = lastUpstreamRequest();
    expect((upstream.body as { stream_options?: unknown }).stream_options).toEqual({ include_usage: true });
    const events = await stack.billingEvents(response.headers.get("x-request-id")!);
    expect(events).toHaveLength(1);
    expect(events[0]!.usage.outputTokens).toBe(upstream.usage!.output_tokens);
    expect(events[0]!.usage.inputTokens).toBe(upstream.usage!.input_tokens);
  });

  it("chat completions streaming with include_usage: the client sees the usage chunk", async () => {
    const stream = await openai.chat.completions.create({
      model: "gpt-test",
      messages: [{ role: "user", content: "count" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let usage: OpenAI.CompletionUsage | null | undefined = null;
    for await (const chunk of stream) if (chunk.usage) usage = chunk.usage;
    expect(usage?.completion_tokens).toBe(lastUpstreamRequest().usage!.output_tokens);
  });

  it("messages: non-streaming and streaming with the SDK's stream helper", async () => {
    const message = await anthropic.messages.create({ model: "claude-test", max_tokens: 100, messages: [{ role: "user", content: "Hi" }] });
    expect(message.type).toBe("message");
    expect(message.content[0]!.type).toBe("text");
    expect(lastUpstreamRequest().model).toBe("claude-upstream-a");
    expect(lastUpstreamRequest().headers["anthropic-version"]).toMatch(/^\d{4}-\d{2}-\d{2}$/);

    const final = await anthropic.messages.stream({ model: "claude-test", max_tokens: 100, messages: [{ role: "user", content: "Stream" }] }).finalMessage();
    expect(final.stop_reason).toBe("end_turn");
    expect(final.usage.output_tokens).toBe(lastUpstreamRequest().usage!.output_tokens);
  });

  it("responses: non-streaming and streaming", async () => {
    const response = await openai.responses.create({ model: "gpt-test", input: "Hello" });
    expect(response.object).toBe("response");
    expect(response.output_text).toMatch(/\w+/);
    const final = await openai.responses.stream({ model: "gpt-test", input: "Stream it" }).finalResponse();
    expect(final.status).toBe("completed");
    expect(final.usage?.output_tokens).toBe(lastUpstreamRequest().usage!.output_tokens);
  });

  it("images: generated and billed per image", async () => {
    const { data, response } = await openai.images.generate({ model: "image-test", prompt: "a cat", n: 2, response_format: "b64_json" }).withResponse();
    expect(data.data).toHaveLength(2);
    const events = await stack.billingEvents(response.headers.get("x-request-id")!);
    expect(events[0]!.usage.images).toBe(2);
  });

  it("models: exactly the server option's models, in both SDKs' list shape", async () => {
    const openaiModels = [];
    for await (const model of openai.models.list()) openaiModels.push(model.id);
    expect(openaiModels.sort()).toEqual(["claude-test", "dead-test", "gpt-test", "image-test"]);
    const anthropicModels = [];
    for await (const model of anthropic.models.list()) anthropicModels.push(model.id);
    expect(anthropicModels.sort()).toEqual(openaiModels);
    const one = await openai.models.retrieve("gpt-test");
    expect(one).toMatchObject({ id: "gpt-test", object: "model" });
    await expect(openai.models.retrieve("hidden-test")).rejects.toMatchObject({ status: 404 });
  });

  it("propagates the W3C trace context and the request id to the upstream", async () => {
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const { response } = await openai.chat.completions
      .create({ model: "gpt-test", messages: [{ role: "user", content: "trace" }] }, { headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01`, tracestate: "vendor=x" } })
      .withResponse();
    const headers = lastUpstreamRequest().headers;
    expect(headers.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    expect(headers.traceparent).not.toContain("00f067aa0ba902b7");
    expect(headers.tracestate).toBe("vendor=x");
    expect(headers["x-request-id"]).toBe(response.headers.get("x-request-id"));
  });

  it("extra fields reach the upstream unchanged; only model is rewritten", async () => {
    const extra = { temperature: 0.25, top_p: 0.5, metadata: { team: "x" }, vendor_specific: { nested: [1, 2, { a: null }] }, response_format: { type: "text" } };
    await openai.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: [{ type: "text", text: "parts" }] }], ...extra } as never);
    const body = lastUpstreamRequest().body as Record<string, unknown>;
    expect(body).toEqual({ model: "gpt-upstream-a", messages: [{ role: "user", content: [{ type: "text", text: "parts" }] }], ...extra });

    const anthropicExtra = { system: [{ type: "text", text: "be brief" }], temperature: 0.1, stop_sequences: ["zzz"], unknown_future_field: { x: 1 } };
    await anthropic.messages.create({ model: "claude-test", max_tokens: 50, messages: [{ role: "user", content: "Hi" }], ...anthropicExtra } as never);
    expect(lastUpstreamRequest().body).toEqual({ model: "claude-upstream-a", max_tokens: 50, messages: [{ role: "user", content: "Hi" }], ...anthropicExtra });
  });

  it("a body that needs no change goes upstream as the client's own bytes; a changed one is re-encoded", async () => {
    const { key } = await stack.mintKey({ serverOption: "same-name" });
    // Indented JSON: re-serialising would make it compact, so the byte count tells the two apart.
    const send = async (path: string, body: Record<string, unknown>, headers: Record<string, string> = {}) => {
      const text = JSON.stringify(body, null, 2);
      const response = await fetch(`${stack.proxy.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${key}`, ...headers },
        body: text,
      });
      await response.text();
      expect(response.status).toBe(200);
      return { sentBytes: Buffer.byteLength(text), upstream: lastUpstreamRequest() };
    };
    const chat = { model: "gpt-same-name", messages: [{ role: "user", content: "héllo" }], temperature: 0.5 };
    const plain = await send("/v1/chat/completions", chat);
    expect(plain.upstream.bodyBytes).toBe(plain.sentBytes);
    expect(plain.upstream.body).toEqual(chat);

    const messages = { model: "claude-same-name", max_tokens: 20, messages: [{ role: "user", content: "Hi" }] };
    const anthropicPlain = await send("/v1/messages", messages, { "anthropic-version": "2023-06-01" });
    expect(anthropicPlain.upstream.bodyBytes).toBe(anthropicPlain.sentBytes);

    // A stream that already asks for usage changes nothing either; one that does not gets it added.
    const withUsage = { ...chat, stream: true, stream_options: { include_usage: true } };
    const streamed = await send("/v1/chat/completions", withUsage);
    expect(streamed.upstream.bodyBytes).toBe(streamed.sentBytes);
    const withoutUsage = await send("/v1/chat/completions", { ...chat, stream: true });
    expect(withoutUsage.upstream.body).toEqual({ ...chat, stream: true, stream_options: { include_usage: true } });
    expect(withoutUsage.upstream.bodyBytes).toBe(Buffer.byteLength(JSON.stringify(withoutUsage.upstream.body)));

    // Another upstream model name: rewritten, so re-encoded.
    const rewritten = await send("/v1/chat/completions", { ...chat, model: "gpt-test" });
    expect(rewritten.upstream.body).toEqual({ ...chat, model: "gpt-upstream-a" });
    expect(rewritten.upstream.bodyBytes).toBe(Buffer.byteLength(JSON.stringify({ ...chat, model: "gpt-upstream-a" })));
  });
});

