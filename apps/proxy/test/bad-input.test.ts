import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request as httpRequest } from "node:http";
import OpenAI from "openai";
import { mintKey } from "@gateway/control-plane";
import { LimitStore } from "@gateway/redis-store";
import { startStack, type Stack } from "./stack.ts";

let stack: Stack;
let key: string;

beforeAll(async () => {
  stack = await startStack({ BODY_LIMIT_BYTES: "65536", CIRCUIT_FAILURE_THRESHOLD: "3" });
  key = (await stack.mintKey()).key;
});
afterAll(async () => stack?.close());

async function call(path: string, init: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {}) {
  const response = await fetch(`${stack.proxy.url}${path}`, {
    method: init.method ?? "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...init.headers },
    body: init.body,
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: JSON.parse(text) as { type: string; error: { type: string; code: string | null; param: string | null; message: string }; request_id: string } };
}

const chat = (body: unknown) => call("/v1/chat/completions", { body: JSON.stringify(body) });

describe("bad input gets the one envelope with the right status", () => {
  const cases: [string, () => ReturnType<typeof call>, number, string, string | null][] = [
    ["malformed JSON", () => call("/v1/chat/completions", { body: '{"model": "gpt-test", ' }), 400, "invalid_request_error", null],
    ["a JSON array body", () => chat([1, 2]), 400, "invalid_request_error", null],
    ["missing messages", () => chat({ model: "gpt-test" }), 400, "invalid_request_error", "messages"],
    ["messages of the wrong type", () => chat({ model: "gpt-test", messages: "hi" }), 400, "invalid_request_error", "messages"],
    ["model of the wrong type", () => chat({ model: 42, messages: [] }), 400, "invalid_request_error", "model"],
    ["stream of the wrong type", () => chat({ model: "gpt-test", messages: [], stream: "yes" }), 400, "invalid_request_error", "stream"],
    ["max_tokens missing on messages", () => call("/v1/messages", { body: JSON.stringify({ model: "claude-test", messages: [] }) }), 400, "invalid_request_error", "max_tokens"],
    ["a bad anthropic-version", () => call("/v1/messages", { headers: { "anthropic-version": "latest" }, body: JSON.stringify({ model: "claude-test", max_tokens: 5, messages: [] }) }), 400, "invalid_request_error", "anthropic-version"],
    ["a body over the limit", () => chat({ model: "gpt-test", messages: [{ role: "user", content: "x".repeat(70_000) }] }), 413, "request_too_large", null],
    ["a body that is not JSON", () => call("/v1/chat/completions", { headers: { "content-type": "text/plain" }, body: "hello" }), 415, "invalid_request_error", null],
    ["an unknown model", () => chat({ model: "no-such-model", messages: [{ role: "user", content: "hi" }] }), 404, "not_found_error", "model"],
    ["a model outside the key's server option", () => chat({ model: "hidden-test", messages: [{ role: "user", content: "hi" }] }), 403, "permission_error", "model"],
    ["no key", () => call("/v1/chat/completions", { headers: { authorization: "" }, body: "{}" }), 401, "authentication_error", null],
    ["an unknown key", () => call("/v1/chat/completions", { headers: { authorization: "Bearer sk-unknown0000000000000000000000" }, body: "{}" }), 401, "authentication_error", null],
    ["a key that is not sk-", () => call("/v1/models", { method: "GET", headers: { authorization: "Bearer vt_abc" } }), 401, "authentication_error", null],
    ["an unknown route", () => call("/v1/nothing-here", { method: "GET" }), 404, "not_found_error", null],
    ["JSON nested deeper than 128 levels", () => chat({ model: "gpt-test", messages: [{ role: "user", content: JSON.parse(`${"[".repeat(200)}${"]".repeat(200)}`) }] }), 400, "invalid_request_error", null],
    ["deep nesting on a translated request", () => chat({ model: "claude-on-openai", messages: [{ role: "user", content: "hi" }], tools: JSON.parse(`${'[{"a":'.repeat(1000)}1${"}]".repeat(1000)}`) }), 400, "invalid_request_error", null],
  ];

  it.each(cases)("%s", async (_name, send, status, type, param) => {
    const { status: actual, headers, body } = await send();
    expect(actual).toBe(status);
    expect(body.type).toBe("error");
    expect(body.error.type).toBe(type);
    expect(body.error.param).toBe(param);
    expect(body.error.message.length).toBeGreaterThan(0);
    expect(body.request_id).toMatch(/^req_/);
    expect(headers.get("x-request-id")).toBe(body.request_id);
  });

  it("a deeply nested body never counts against the upstream: its circuit stays closed for everyone", async () => {
    const deep = JSON.parse(`${'{"a":'.repeat(3000)}1${"}".repeat(3000)}`);
    for (const model of ["gpt-test", "claude-on-openai", "gpt-on-anthropic"]) {
      for (let index = 0; index < 5; index += 1) {
        const answer = await chat({ model, messages: [{ role: "user", content: "hi" }], tools: [deep], metadata: deep });
        expect(answer.status).toBe(400);
      }
    }
    expect(stack.proxy.services.breaker.openUpstreams()).toEqual([]);
    expect((await chat({ model: "gpt-test", messages: [{ role: "user", content: "hi" }] })).status).toBe(200);
  });

  it("bad requests never reach the upstream, and the service keeps serving", async () => {
    stack.simulator.stats.clear();
    await Promise.all(cases.map(([, send]) => send()));
    expect(stack.simulator.stats.requests).toHaveLength(0);
    const openai = new OpenAI({ baseURL: `${stack.proxy.url}/v1`, apiKey: key, maxRetries: 0 });
    const completion = await openai.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "still here?" }] });
    expect(completion.choices[0]!.message.content).toBeTruthy();
  });

  it("the SDKs surface the envelope's message and type", async () => {
    const openai = new OpenAI({ baseURL: `${stack.proxy.url}/v1`, apiKey: key, maxRetries: 0 });
    const error = await openai.chat.completions.create({ model: "no-such-model", messages: [{ role: "user", content: "hi" }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect((error as InstanceType<typeof OpenAI.NotFoundError>).code).toBe("model_not_found");
  });
});

describe("what the gateway must read is refused before any upstream call or reservation; the rest is the provider's", () => {
  const hi = { role: "user", content: "hi" };
  const messages = (body: Record<string, unknown>) => ({ model: "claude-test", max_tokens: 5, messages: [hi], ...body });
  const cases: [string, string, Record<string, unknown>, string][] = [
    ["an empty model", "/v1/chat/completions", { model: "", messages: [hi] }, "model"],
    ["max_tokens 0", "/v1/chat/completions", { model: "gpt-test", messages: [hi], max_tokens: 0 }, "max_tokens"],
    ["max_tokens -1", "/v1/chat/completions", { model: "gpt-test", messages: [hi], max_tokens: -1 }, "max_tokens"],
    ["max_tokens 1.5", "/v1/chat/completions", { model: "gpt-test", messages: [hi], max_tokens: 1.5 }, "max_tokens"],
    ['max_tokens "10"', "/v1/chat/completions", { model: "gpt-test", messages: [hi], max_tokens: "10" }, "max_tokens"],
    ["max_completion_tokens 0", "/v1/chat/completions", { model: "gpt-test", messages: [hi], max_completion_tokens: 0 }, "max_completion_tokens"],
    ["n 0", "/v1/chat/completions", { model: "gpt-test", messages: [hi], n: 0 }, "n"],
    ["temperature as a string", "/v1/chat/completions", { model: "gpt-test", messages: [hi], temperature: "hot" }, "temperature"],
    ["messages: max_tokens 0", "/v1/messages", messages({ max_tokens: 0 }), "max_tokens"],
    ["messages: max_tokens -1", "/v1/messages", messages({ max_tokens: -1 }), "max_tokens"],
    ["messages: max_tokens 1.5", "/v1/messages", messages({ max_tokens: 1.5 }), "max_tokens"],
    ['messages: max_tokens "10"', "/v1/messages", messages({ max_tokens: "10" }), "max_tokens"],
    ["messages: stream as a string", "/v1/messages", messages({ stream: "true" }), "stream"],
    ["responses: model as an object", "/v1/responses", { model: {}, input: "hi" }, "model"],
    ["images: an empty prompt", "/v1/images/generations", { model: "image-test", prompt: "" }, "prompt"],
    ["images: a prompt that is a number", "/v1/images/generations", { model: "image-test", prompt: 3 }, "prompt"],
    ["images: n 11", "/v1/images/generations", { model: "image-test", prompt: "a cat", n: 11 }, "n"],
    ["images: n 0", "/v1/images/generations", { model: "image-test", prompt: "a cat", n: 0 }, "n"],
  ];
  let quotaKey: { id: string; key: string };

  beforeAll(async () => {
    const { prisma } = stack.controlPlane.db;
    const vendor = await prisma.vendor.findUniqueOrThrow({ where: { name: "test-vendor" } });
    const minted = await mintKey(prisma, stack.controlPlane.records, {
      vendorId: vendor.id, serverOption: "standard", name: "quota", quotaNano: 5_000_000_000n, expiresAt: null, rpm: null, tpm: null, metadata: {},
    });
    quotaKey = { id: minted.row.id, key: minted.plaintext };
  });

  it.each(cases)("%s", async (_name, path, body, param) => {
    stack.simulator.stats.clear();
    const answer = await call(path, { headers: { authorization: `Bearer ${quotaKey.key}` }, body: JSON.stringify(body) });
    expect([answer.status, answer.body.error.type, answer.body.error.code, answer.body.error.param]).toEqual([400, "invalid_request_error", "invalid_body", param]);
    expect(answer.body.error.message).toContain(param);
    expect(answer.headers.get("x-request-id")).toBe(answer.body.request_id);
    expect(stack.simulator.stats.requests).toHaveLength(0);
    expect(await new LimitStore(stack.controlPlane.redis, stack.prefix).readQuota(quotaKey.id)).toEqual({ spent: 0n, reserved: 0n });
  });

  // Contract section 15: same shape, the provider decides. What the gateway need not read reaches
  // the upstream as the client sent it, and the client gets the upstream's own answer (2xx or 4xx).
  const providerDecides: [string, string, Record<string, unknown>][] = [
    ["an empty messages list", "/v1/chat/completions", { model: "gpt-test", messages: [] }],
    ["content that is a number", "/v1/chat/completions", { model: "gpt-test", messages: [{ role: "user", content: 42 }] }],
    ["content that is an object", "/v1/chat/completions", { model: "gpt-test", messages: [hi, { role: "user", content: { text: "hi" } }] }],
    ["a content part without a type", "/v1/chat/completions", { model: "gpt-test", messages: [{ role: "user", content: [{ text: "hi" }] }] }],
    ["null content on a user message", "/v1/chat/completions", { model: "gpt-test", messages: [{ role: "user", content: null }] }],
    ["a message without a role", "/v1/chat/completions", { model: "gpt-test", messages: [{ content: "hi" }] }],
    ["an unknown role", "/v1/chat/completions", { model: "gpt-test", messages: [{ role: "robot", content: "hi" }] }],
    ["a message that is a string", "/v1/chat/completions", { model: "gpt-test", messages: ["hi"] }],
    ["tools that are not an array", "/v1/chat/completions", { model: "gpt-test", messages: [hi], tools: {} }],
    ["messages: an empty list", "/v1/messages", messages({ messages: [] })],
    // A mid-conversation system message: forward-compat.test.ts (passed, or folded for a model without them).
    ["messages: a role from the future", "/v1/messages", messages({ messages: [{ role: "critic", content: "x" }] })],
    ["messages: content that is a number", "/v1/messages", messages({ messages: [{ role: "user", content: 7 }] })],
    ["messages: a block without a type", "/v1/messages", messages({ messages: [{ role: "user", content: [{ text: "hi" }] }] })],
    ["messages: a message without a role", "/v1/messages", messages({ messages: [{ content: "hi" }] })],
    ["messages: system as a number", "/v1/messages", messages({ system: 1 })],
    ["responses: input as a number", "/v1/responses", { model: "gpt-test", input: 5 }],
  ];

  it.each(providerDecides)("the provider decides: %s", async (_name, path, body) => {
    stack.simulator.stats.clear();
    const answer = await call(path, { headers: { authorization: `Bearer ${quotaKey.key}` }, body: JSON.stringify(body) });
    const sent = stack.simulator.stats.requests;
    expect(sent.length, JSON.stringify(answer.body)).toBeGreaterThanOrEqual(1);
    const upstreamBody = sent[0]!.body as Record<string, unknown>;
    for (const field of Object.keys(body).filter((name) => name !== "model" && name !== "max_tokens")) expect(upstreamBody[field]).toEqual(body[field]);
    expect(answer.status).toBe(sent.at(-1)!.status);
    expect(answer.status).toBeLessThan(500);
  });

  it("what the native APIs accept still passes: null content on an assistant tool call, parts, nulls for optional fields, unknown fields", async () => {
    const chatBody = {
      model: "gpt-test",
      max_tokens: 5,
      n: null,
      temperature: null,
      x_vendor_extension: { anything: [1, "two"] },
      messages: [
        { role: "developer", content: [{ type: "text", text: "be brief" }] },
        { role: "user", content: "hi" },
        { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }] },
        { role: "tool", tool_call_id: "c1", content: "done" },
      ],
    };
    expect((await call("/v1/chat/completions", { headers: { authorization: `Bearer ${quotaKey.key}` }, body: JSON.stringify(chatBody) })).status).toBe(200);
    const messagesBody = messages({ system: [{ type: "text", text: "be brief" }], messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }] });
    expect((await call("/v1/messages", { headers: { authorization: `Bearer ${quotaKey.key}` }, body: JSON.stringify(messagesBody) })).status).toBe(200);
    expect((await call("/v1/responses", { headers: { authorization: `Bearer ${quotaKey.key}` }, body: JSON.stringify({ model: "gpt-test", input: [{ role: "user", content: "hi" }], max_output_tokens: 16 }) })).status).toBe(200);
  });
});

describe("keys", () => {
  it("works with x-api-key as well as Bearer, on any endpoint", async () => {
    const models = await call("/v1/models", { method: "GET", headers: { authorization: "", "x-api-key": key } });
    expect(models.status).toBe(200);
  });

  it("a revoked key is refused within a second", async () => {
    const minted = await stack.mintKey();
    const list = () => fetch(`${stack.proxy.url}/v1/models`, { headers: { authorization: `Bearer ${minted.key}` } });
    expect((await list()).status).toBe(200);
    await stack.revokeKey(minted.id);
    await expect.poll(async () => (await list()).status, { timeout: 1_000, interval: 50 }).toBe(401);
  });

  it("a freshly minted key works at once, even after the same key text was looked up as unknown", async () => {
    const minted = await stack.mintKey();
    expect((await fetch(`${stack.proxy.url}/v1/models`, { headers: { authorization: `Bearer ${minted.key}` } })).status).toBe(200);
  });
});

describe("discovery and health", () => {
  it("GET /v1 answers the discovery object without auth", async () => {
    const response = await fetch(`${stack.proxy.url}/v1`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      service: "llm-gateway",
      status: "ok",
      endpoints: {
        chat_completions: "POST /v1/chat/completions",
        responses: "POST /v1/responses",
        messages: "POST /v1/messages",
        images_generations: "POST /v1/images/generations",
        models: "GET /v1/models",
        usage: "GET /v1/usage",
      },
      extensions: {
        messages_count_tokens: "POST /v1/messages/count_tokens",
        embeddings: "POST /v1/embeddings",
        redeem: "POST /v1/redeem",
        responses_retrieve: "GET /v1/responses/{id}",
        responses_delete: "DELETE /v1/responses/{id}",
        responses_input_items: "GET /v1/responses/{id}/input_items",
        responses_input_tokens: "POST /v1/responses/input_tokens",
        responses_websocket: "GET /v1/responses (Upgrade: websocket)",
        conversations: "POST /v1/conversations",
        conversation: "GET|POST|DELETE /v1/conversations/{id}",
        conversation_items: "GET|POST /v1/conversations/{id}/items",
        conversation_item: "GET|DELETE /v1/conversations/{id}/items/{item_id}",
        gemini_generate_content: "POST /v1beta/models/{model}:generateContent",
        gemini_stream_generate_content: "POST /v1beta/models/{model}:streamGenerateContent?alt=sse",
        gemini_count_tokens: "POST /v1beta/models/{model}:countTokens",
        gemini_embed_content: "POST /v1beta/models/{model}:embedContent",
        gemini_batch_embed_contents: "POST /v1beta/models/{model}:batchEmbedContents",
        gemini_models: "GET /v1beta/models",
        gemini_model: "GET /v1beta/models/{model}",
      },
      compatible_with: ["openai", "anthropic", "gemini"],
    });
  });

  it("GET /v1/responses asking for a WebSocket (Codex's first try, as captured from Codex 0.171) switches protocols (Responses over WebSocket, contract section 18); without the upgrade it is an unknown route", async () => {
    const upgrade = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = httpRequest(`${stack.proxy.url}/v1/responses`, {
        headers: {
          connection: "Upgrade",
          upgrade: "websocket",
          "sec-websocket-version": "13",
          "sec-websocket-key": "8J3ahDG/ct/2fq4dzsG+/Q==",
          "openai-beta": "responses_websockets=2026-02-06",
          authorization: `Bearer ${key}`,
        },
      });
      request.on("response", (response) => reject(new Error(`answered ${response.statusCode} instead of switching protocols`)));
      request.on("upgrade", (response, socket) => {
        socket.destroy();
        resolve({ status: response.statusCode ?? 0, body: "" });
      });
      request.on("error", reject);
      request.end();
    });
    expect(upgrade.status).toBe(101);
    const plain = await call("/v1/responses", { method: "GET" });
    expect([plain.status, plain.body.error.code]).toEqual([404, "route_not_found"]);
    // The proxy keeps serving on the same address.
    expect((await call("/v1/models", { method: "GET" })).status).toBe(200);
  });

  it("routes: unknown paths and methods get the 404 envelope; case, trailing slash, query and HEAD are matched", async () => {
    const unknown = await call("/v1/nothing-here", { method: "GET" });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ type: "not_found_error", code: "route_not_found" });
    expect(unknown.body.error.message).toBe("Unknown route: GET /v1/nothing-here");
    expect(unknown.headers.get("x-request-id")).toBe(unknown.body.request_id);
    const wrongMethod = await call("/v1/chat/completions", { method: "GET" });
    expect([wrongMethod.status, wrongMethod.body.error.code]).toEqual([404, "route_not_found"]);

    const loose = await call("/V1/Chat/Completions/?trace=1", { body: JSON.stringify({ model: "gpt-test", messages: [{ role: "user", content: "hi" }] }) });
    expect(loose.status).toBe(200);
    expect((loose.body as unknown as { object: string }).object).toBe("chat.completion");

    const head = await fetch(`${stack.proxy.url}/healthz`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");

    // The model id keeps its case and may hold slashes (percent-encoded or not); the route is matched in any case.
    const model = await call("/V1/models/gpt-test", { method: "GET" });
    expect([model.status, (model.body as unknown as { id: string }).id]).toEqual([200, "gpt-test"]);
    const missing = await call("/v1/models/org%2FGPT-Test", { method: "GET" });
    expect(missing.status).toBe(404);
    expect(missing.body.error.message).toBe("The model 'org/GPT-Test' does not exist.");
  });

  it("healthz and readyz", async () => {
    expect((await fetch(`${stack.proxy.url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${stack.proxy.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: "ok", checks: { redis: true, routing: true } });
  });
});
