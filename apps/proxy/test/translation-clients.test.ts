import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { generateText, jsonSchema, streamText, tool } from "ai";
import { createAnthropic } from "@ai-sdk/anthropic";
import { parseGatewayFile } from "@gateway/config";
import { applyGatewayFile } from "@gateway/control-plane";
import type { StatsRecord } from "@gateway/simulator";
import { startStack, gatewayYamlEditor, type Stack } from "./stack.ts";
import { fixtureJson, sseEvents } from "../src/shapes/__fixtures__/fixtures.ts";

/**
 * Contract section 11 through the real stack (proxy, Redis, control plane, simulator) and real
 * HTTP: the drop-or-refuse rule and its `x-gateway-dropped-params` header (JSON and streams),
 * strict_params, `models[].drop_params` same shape, `anthropic-beta` forwarding minus
 * `drop_betas`, thinking blocks untouched same shape, Codex's Responses requests on an
 * Anthropic-shape model, and answers `@ai-sdk/anthropic` parses (no `citations: null`).
 */
let stack: Stack;
let key: string;
let strictKey: string;
let anthropic: Anthropic;
let openai: OpenAI;

const HEADER = "x-gateway-dropped-params";

/** The test gateway file plus the models and server options of this file. */
function clientsGatewayYaml(simulatorUrl: string): string {
  const { replaceOnce, text } = gatewayYamlEditor(simulatorUrl);
  replaceOnce(
    "upstreams:\n",
    `upstreams:\n  - { name: sim-anthropic-betas, shape: anthropic, base_url: "${simulatorUrl}", secret_env: TEST_SIMULATOR_KEY, drop_betas: [oauth-2025-04-20, files-api-2025-04-14] }\n`,
  );
  replaceOnce(
    "models:\n",
    `models:
  - name: claude-drop-params
    prices: { input: "3.00", output: "15.00" }
    drop_params: [temperature, top_p, top_k]
    targets: [ { upstream: sim-anthropic-a, model: claude-drop-upstream } ]
  - name: gpt-drop-params
    prices: { input: "1", output: "1" }
    drop_params: [temperature]
    targets: [ { upstream: sim-openai-a, model: gpt-drop-upstream } ]
  - name: claude-betas
    prices: { input: "3.00", output: "15.00" }
    targets: [ { upstream: sim-anthropic-betas, model: claude-betas-upstream } ]
`,
  );
  replaceOnce(
    "server_options:\n",
    `server_options:
  - { name: clients, models: [claude-on-openai, gpt-on-anthropic, gpt-chat-only, claude-test, claude-drop-params, gpt-drop-params, claude-betas, mixed-test] }
  - { name: clients-strict, models: [claude-on-openai, gpt-on-anthropic, mixed-test], strict_params: true }
`,
  );
  return text();
}

beforeAll(async () => {
  stack = await startStack();
  await applyGatewayFile(stack.controlPlane.db.prisma, stack.controlPlane.records, parseGatewayFile(clientsGatewayYaml(stack.simulator.url)));
  key = (await stack.mintKey({ serverOption: "clients" })).key;
  strictKey = (await stack.mintKey({ serverOption: "clients-strict" })).key;
  await waitForModel("claude-drop-params", key);
  await waitForModel("claude-on-openai", strictKey);
  anthropic = new Anthropic({ baseURL: stack.proxy.url, apiKey: key, maxRetries: 0 });
  openai = new OpenAI({ baseURL: `${stack.proxy.url}/v1`, apiKey: key, maxRetries: 0 });
});
afterAll(async () => stack?.close());
beforeEach(() => {
  stack.simulator.faults.clear();
  stack.simulator.stats.clear();
});

/** The re-applied file reaches the proxy through its routing refresh. */
async function waitForModel(model: string, apiKey: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const response = await post("/v1/messages", { model, max_tokens: 5, messages: [{ role: "user", content: "ping" }] }, {}, apiKey);
    if (response.status === 200 || Date.now() > deadline) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function post(path: string, body: unknown, headers: Record<string, string> = {}, apiKey = key): Promise<{ status: number; headers: Headers; text: string; json: () => Record<string, unknown> }> {
  const response = await fetch(`${stack.proxy.url}${path}`, {
    method: "POST",
    headers: { "x-api-key": apiKey, "content-type": "application/json", "anthropic-version": "2023-06-01", ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: () => JSON.parse(text) as Record<string, unknown> };
}

const upstream = (): StatsRecord => stack.simulator.stats.requests.filter((record) => !record.path.startsWith("/v1/models")).at(-1)!;
const upstreamBody = () => upstream().body as Record<string, unknown>;

const readSchema = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };

/** What Claude Code sends (trimmed): betas, cache_control everywhere, signed thinking in the history, context_management. */
function claudeCodeRequest(model: string, stream: boolean): Record<string, unknown> {
  return {
    model,
    max_tokens: 200,
    stream,
    system: [
      { type: "text", text: "You are Claude Code.", cache_control: { type: "ephemeral" } },
      { type: "text", text: "Be brief." },
    ],
    messages: [
      { role: "user", content: [{ type: "text", text: "Read a.ts", cache_control: { type: "ephemeral" } }] },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "Read it.", signature: "EqQBCkYIBxgCKkBsig" },
          { type: "tool_use", id: "toolu_1", name: "Read", input: { path: "a.ts" } },
        ],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "export {}" }, { type: "text", text: "Now explain it." }] },
    ],
    tools: [{ name: "Read", description: "Read a file", input_schema: readSchema, cache_control: { type: "ephemeral" }, eager_input_streaming: true }],
    thinking: { type: "adaptive" },
    context_management: { edits: [{ type: "clear_thinking_20251015", keep: "all" }] },
    metadata: { user_id: "user_abc" },
    top_k: 40,
  };
}

const CLAUDE_CODE_DROPPED = [
  // claude-on-openai runs under the OpenAI family's capabilities (reasoning: false): dropped before translation.
  "thinking",
  "anthropic-beta",
  "top_k",
  "context_management",
  "system[0].cache_control",
  "messages[0].content[0].cache_control",
  "messages[1].content[0]",
  "tools[0].cache_control",
  "tools[0].eager_input_streaming",
];

const dropped = (headers: Headers) => headers.get(HEADER)?.split(", ") ?? [];

describe("x-gateway-dropped-params: fields that only tune the answer are dropped and listed", () => {
  it.each([false, true])("Claude Code on an OpenAI-shape model (stream %s): answered, every dropped path listed, nothing of it upstream", async (stream) => {
    const response = await post("/v1/messages?beta=true", claudeCodeRequest("claude-on-openai", stream), {
      "anthropic-beta": "claude-code-20250219,oauth-2025-04-20,interleaved-thinking-2025-05-14",
    });
    expect(response.status, response.text).toBe(200);
    expect(dropped(response.headers)).toEqual(CLAUDE_CODE_DROPPED);
    if (stream) {
      expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
      expect(sseEvents(response.text).map((event) => event.event).at(-1)).toBe("message_stop");
    } else {
      expect(response.json()).toMatchObject({ type: "message", role: "assistant" });
    }
    const sent = upstream();
    expect(sent.path).toBe("/v1/chat/completions");
    expect(sent.headers["anthropic-beta"]).toBeUndefined();
    const body = JSON.stringify(sent.body);
    for (const word of ["cache_control", "eager_input_streaming", "top_k", "context_management", "thinking", "EqQBCkYIBxgCKkBsig"]) expect(body).not.toContain(word);
    expect(upstreamBody().messages).toEqual([
      { role: "system", content: [{ type: "text", text: "You are Claude Code." }, { type: "text", text: "Be brief." }] },
      { role: "user", content: [{ type: "text", text: "Read a.ts" }] },
      { role: "assistant", content: null, tool_calls: [{ id: "toolu_1", type: "function", function: { name: "Read", arguments: '{"path":"a.ts"}' } }] },
      { role: "tool", tool_call_id: "toolu_1", content: "export {}" },
      { role: "user", content: [{ type: "text", text: "Now explain it." }] },
    ]);
  });

  it("nothing dropped: no header, cross-shape and same shape", async () => {
    const cross = await post("/v1/messages", { model: "claude-on-openai", max_tokens: 20, messages: [{ role: "user", content: "Hi" }] });
    expect(cross.status).toBe(200);
    expect(cross.headers.has(HEADER)).toBe(false);
    const same = await post("/v1/messages", { model: "claude-test", max_tokens: 20, messages: [{ role: "user", content: "Hi" }] }, { "anthropic-beta": "interleaved-thinking-2025-05-14" });
    expect(same.status).toBe(200);
    expect(same.headers.has(HEADER)).toBe(false);
  });

  it("chat completions on an Anthropic-shape model through the openai SDK: penalties, seed and logit_bias dropped, the header on the stream's first byte", async () => {
    const { data: stream, response } = await openai.chat.completions
      .create({ model: "gpt-on-anthropic", messages: [{ role: "user", content: "Hello" }], stream: true, seed: 7, frequency_penalty: 0.5, logit_bias: { "50256": -100 }, user: "u-1" })
      .withResponse();
    expect(dropped(response.headers)).toEqual(["frequency_penalty", "logit_bias", "seed"]);
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    expect(text.length).toBeGreaterThan(0);
    expect(upstreamBody()).not.toHaveProperty("seed");
    expect(upstreamBody()).toMatchObject({ metadata: { user_id: "u-1" } });
  });

  it("a field whose loss changes the answer is still a 400 naming it (n > 1)", async () => {
    const response = await post("/v1/chat/completions", { model: "gpt-on-anthropic", messages: [{ role: "user", content: "Hi" }], n: 2 }, {});
    expect(response.status).toBe(400);
    expect(response.json()).toMatchObject({ error: { type: "invalid_request_error", param: "n" } });
    expect(response.headers.has(HEADER)).toBe(false);
  });
});

describe("strict_params: the first would-be-dropped field is a 400", () => {
  it("Claude Code's request on a strict server option: refused naming thinking (the model takes no reasoning), nothing sent upstream", async () => {
    const response = await post("/v1/messages", claudeCodeRequest("claude-on-openai", false), {}, strictKey);
    expect(response.status).toBe(400);
    expect(response.json()).toMatchObject({ type: "error", error: { type: "invalid_request_error", param: "thinking" } });
    expect(response.json().error).toMatchObject({ message: expect.stringContaining("strict_params") });
    expect(stack.simulator.stats.requests).toHaveLength(0);
  });

  it("betas on a strict server option: a cross-shape-only model refuses them; a model with an Anthropic-shape target serves there", async () => {
    const body = { model: "claude-on-openai", max_tokens: 20, messages: [{ role: "user", content: "Hi" }] };
    const refused = await post("/v1/messages", body, { "anthropic-beta": "interleaved-thinking-2025-05-14" }, strictKey);
    expect(refused.status).toBe(400);
    expect(refused.json()).toMatchObject({ error: { param: "anthropic-beta" } });
    const mixed = await post("/v1/messages", { ...body, model: "mixed-test" }, { "anthropic-beta": "interleaved-thinking-2025-05-14" }, strictKey);
    expect(mixed.status).toBe(200);
    expect(upstream()).toMatchObject({ path: "/v1/messages", headers: { "anthropic-beta": "interleaved-thinking-2025-05-14" } });
  });

  it("a request with nothing to drop is served as usual", async () => {
    const response = await post("/v1/messages", { model: "claude-on-openai", max_tokens: 20, messages: [{ role: "user", content: "Hi" }] }, {}, strictKey);
    expect(response.status).toBe(200);
  });
});

describe("models[].drop_params", () => {
  it("same shape: temperature, top_p and top_k never reach the upstream; listed; the rest of the body as sent", async () => {
    const body = { model: "claude-drop-params", max_tokens: 20, temperature: 0.2, top_k: 5, stop_sequences: ["zzz"], messages: [{ role: "user", content: "Hi" }] };
    const response = await post("/v1/messages", body);
    expect(response.status).toBe(200);
    expect(dropped(response.headers)).toEqual(["temperature", "top_k"]);
    expect(upstreamBody()).toEqual({ model: "claude-drop-upstream", max_tokens: 20, stop_sequences: ["zzz"], messages: [{ role: "user", content: "Hi" }] });
  });

  it("same shape, streamed, on an OpenAI-shape model", async () => {
    const response = await post("/v1/chat/completions", { model: "gpt-drop-params", temperature: 0.7, stream: true, messages: [{ role: "user", content: "Hi" }] });
    expect(response.status).toBe(200);
    expect(dropped(response.headers)).toEqual(["temperature"]);
    expect(upstreamBody()).not.toHaveProperty("temperature");
    expect(response.text.trim().endsWith("data: [DONE]")).toBe(true);
  });

  it("none of the listed fields present: the client's bytes are relayed, no header", async () => {
    const response = await post("/v1/messages", { model: "claude-drop-params", max_tokens: 20, messages: [{ role: "user", content: "Hi" }] });
    expect(response.status).toBe(200);
    expect(response.headers.has(HEADER)).toBe(false);
    expect(upstreamBody()).toEqual({ model: "claude-drop-upstream", max_tokens: 20, messages: [{ role: "user", content: "Hi" }] });
  });
});

describe("anthropic-beta", () => {
  it("is forwarded same shape minus the default drop_betas (OAuth); several headers and lists are one list", async () => {
    const response = await post("/v1/messages?beta=true", { model: "claude-test", max_tokens: 20, messages: [{ role: "user", content: "Hi" }] }, {
      "anthropic-beta": "oauth-2025-04-20, interleaved-thinking-2025-05-14,context-management-2025-06-27",
    });
    expect(response.status).toBe(200);
    expect(upstream().headers["anthropic-beta"]).toBe("interleaved-thinking-2025-05-14,context-management-2025-06-27");
  });

  it("minus the upstream's own drop_betas; nothing left: no header at all", async () => {
    await post("/v1/messages", { model: "claude-betas", max_tokens: 20, messages: [{ role: "user", content: "Hi" }] }, { "anthropic-beta": "files-api-2025-04-14,fine-grained-tool-streaming-2025-05-14" });
    expect(upstream().headers["anthropic-beta"]).toBe("fine-grained-tool-streaming-2025-05-14");
    await post("/v1/messages", { model: "claude-betas", max_tokens: 20, messages: [{ role: "user", content: "Hi" }] }, { "anthropic-beta": "oauth-2025-04-20,files-api-2025-04-14" });
    expect(upstream().headers["anthropic-beta"]).toBeUndefined();
  });

  it("never reaches an OpenAI-shape upstream", async () => {
    const response = await post("/v1/chat/completions", { model: "claude-on-openai", messages: [{ role: "user", content: "Hi" }] }, { "anthropic-beta": "interleaved-thinking-2025-05-14" });
    expect(response.status).toBe(200);
    expect(upstream().headers["anthropic-beta"]).toBeUndefined();
    expect(response.headers.has(HEADER)).toBe(false);
  });
});

describe("thinking", () => {
  it("same shape: thinking and redacted_thinking blocks and their signatures reach the upstream untouched", async () => {
    const body = {
      model: "claude-test",
      max_tokens: 200,
      thinking: { type: "enabled", budget_tokens: 1024 },
      messages: [
        { role: "user", content: "Weather?" },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "Call the tool.\nCarefully: \u00e9\u00e8 \ud83d\ude00", signature: "EqQBCkYIBxgCKkB+/=sig" },
            { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIw" },
            { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } },
          ],
        },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "Sunny" }] },
      ],
      tools: [{ name: "get_weather", input_schema: { type: "object", properties: { city: { type: "string" } } } }],
    };
    const response = await post("/v1/messages", body, { "anthropic-beta": "interleaved-thinking-2025-05-14" });
    expect(response.status).toBe(200);
    expect(response.headers.has(HEADER)).toBe(false);
    expect(upstreamBody()).toEqual({ ...body, model: "claude-upstream-a" });
  });
});

describe("Codex (Responses) on an Anthropic-shape model", () => {
  /** Codex's recorded request; an assistant message closes the tool turn, so the last user turn asks anew. */
  const codex = (extra: Record<string, unknown>) => {
    const request = fixtureJson("codex/request.json");
    const input = [...(request.input as unknown[])];
    input.splice(input.length - 1, 0, { type: "message", role: "assistant", content: [{ type: "output_text", text: "Added README.md." }] });
    return { ...request, input, model: "gpt-on-anthropic", ...extra };
  };

  it("the custom apply_patch tool is called as a string-input tool and answered as a custom_tool_call, streamed", async () => {
    const response = await post("/v1/responses", codex({ tool_choice: { type: "custom", name: "apply_patch" } }));
    expect(response.status, response.text).toBe(200);
    expect(dropped(response.headers)).toEqual(["prompt_cache_key", "tools[1].format", "text.verbosity"]);
    expect(upstream().path).toBe("/v1/messages");
    expect(upstreamBody()).toMatchObject({
      tools: [{ name: "shell" }, { name: "apply_patch", input_schema: { type: "object", properties: { input: { type: "string" } }, required: ["input"] } }],
      tool_choice: { type: "tool", name: "apply_patch", disable_parallel_tool_use: true },
    });
    const events = sseEvents(response.text).map((event) => JSON.parse(event.data) as Record<string, unknown>);
    const types = events.map((event) => event.type);
    expect(types).toContain("response.custom_tool_call_input.delta");
    expect(events.find((event) => event.type === "response.custom_tool_call_input.done")).toMatchObject({ input: "test" });
    const done = events.find((event) => event.type === "response.output_item.done" && (event.item as { type: string }).type === "custom_tool_call");
    expect(done?.item).toMatchObject({ type: "custom_tool_call", name: "apply_patch", input: "test", status: "completed", call_id: expect.any(String) });
    expect(types.at(-1)).toBe("response.completed");
    expect(types).not.toContain("response.function_call_arguments.delta");
  });

  it("through the openai SDK, not streamed: the custom_tool_call output item", async () => {
    const response = await openai.responses.create({
      ...(codex({ stream: false, tool_choice: { type: "custom", name: "apply_patch" } }) as unknown as OpenAI.Responses.ResponseCreateParamsNonStreaming),
    });
    const call = response.output.find((item) => item.type === "custom_tool_call");
    expect(call).toMatchObject({ type: "custom_tool_call", name: "apply_patch", input: "test" });
  });

  it("on an OpenAI-shape model without the Responses API: the same mapping through chat completions", async () => {
    const response = await post("/v1/responses", { ...codex({ tool_choice: { type: "custom", name: "apply_patch" } }), model: "gpt-chat-only" });
    expect(response.status, response.text).toBe(200);
    // gpt-chat-only takes no reasoning (the OpenAI family's default): Codex's reasoning goes before translation.
    expect(dropped(response.headers)).toEqual(["reasoning.effort", "reasoning.summary", "include[0]", "input[2]", "tools[1].format"]);
    expect(upstream().path).toBe("/v1/chat/completions");
    expect(upstreamBody()).not.toHaveProperty("reasoning_effort");
    expect(upstreamBody()).toMatchObject({ tools: [{ function: { name: "shell" } }, { function: { name: "apply_patch", parameters: { properties: { input: { type: "string" } } } } }] });
    const events = sseEvents(response.text).map((event) => JSON.parse(event.data) as Record<string, unknown>);
    expect(events.find((event) => event.type === "response.custom_tool_call_input.done")).toMatchObject({ input: "test" });
  });
});

describe("@ai-sdk/anthropic on an OpenAI-shape model", () => {
  const provider = () => createAnthropic({ baseURL: `${stack.proxy.url}/v1`, apiKey: key });
  const lookup = tool({
    description: "Look a word up",
    inputSchema: jsonSchema<{ word: string }>({ type: "object", properties: { word: { type: "string" } }, required: ["word"] }),
    execute: async ({ word }) => `${word}: a word`,
  });

  it("the raw answer has no null where the native API omits a field (no citations: null)", async () => {
    const response = await post("/v1/messages", { model: "claude-on-openai", max_tokens: 50, messages: [{ role: "user", content: "Hello" }] });
    const message = response.json();
    expect(message.content).toEqual([{ type: "text", text: expect.any(String) }]);
    expect(Object.entries(message).filter(([, value]) => value === null).map(([name]) => name)).toEqual(["stop_sequence"]);
    const streamed = await post("/v1/messages", { model: "claude-on-openai", max_tokens: 50, stream: true, messages: [{ role: "user", content: "Hello" }] });
    const start = sseEvents(streamed.text).find((event) => event.event === "content_block_start");
    expect(JSON.parse(start!.data)).toEqual({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } });
  });

  it("generateText with a tool (eager_input_streaming dropped, not refused)", async () => {
    const result = await generateText({ model: provider()("claude-on-openai"), prompt: "Look up 'gateway'", tools: { lookup }, maxRetries: 0, maxOutputTokens: 200 });
    expect(result.toolCalls.map((call) => call.toolName)).toEqual(["lookup"]);
    const first = stack.simulator.stats.requests.find((record) => record.path === "/v1/chat/completions");
    expect(JSON.stringify(first?.body)).not.toContain("eager_input_streaming");
  });

  it("streamText with a tool and text", async () => {
    const errors: unknown[] = [];
    const result = streamText({ model: provider()("claude-on-openai"), prompt: "Look up 'stream'", tools: { lookup }, maxRetries: 0, maxOutputTokens: 200, onError: ({ error }) => void errors.push(error) });
    const calls = await result.toolCalls;
    expect(errors).toEqual([]);
    expect(calls.map((call) => [call.toolName, call.input])).toEqual([["lookup", { word: "test" }]]);
    const text = await generateText({ model: provider()("claude-on-openai"), prompt: "Say hello", maxRetries: 0, maxOutputTokens: 100 });
    expect(text.text.length).toBeGreaterThan(0);
  });
});
