// Contract section 15 through the real stack, against a simulator in strict mode (it refuses what
// the real model refuses: a mid-conversation system message to Claude before 4.8, reasoning_effort
// to gpt-4o-mini, sampling to Claude 5 under anthropic-version 2026-10-21, ...). Same shape the
// provider decides; the model's capabilities decide what reaches it; Claude Code 2.1's recorded
// requests (fixtures/claude-code-2.1, issue 36) are answered instead of refused.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parseGatewayFile } from "@gateway/config";
import { applyGatewayFile } from "@gateway/control-plane";
import { startSimulator, type Simulator, type StatsRecord } from "@gateway/simulator";
import { SIMULATOR_SECRET, startStack, gatewayYamlEditor, type Stack } from "./stack.ts";

const DROPPED = "x-gateway-dropped-params";
const REMINDER = /^<system-reminder>\n[\s\S]*\n<\/system-reminder>$/;

let stack: Stack;
let strictSimulator: Simulator;
let key: string;
let strictKey: string;

/**
 * The test gateway file plus upstreams on the strict simulator, with real upstream model ids (the
 * simulator's capability table knows them) and the capabilities the gateway file gives them.
 */
function forwardCompatYaml(simulatorUrl: string, strictUrl: string): string {
  const { replaceOnce, text } = gatewayYamlEditor(simulatorUrl);
  const timeouts = "timeouts: { connect_ms: 1000, first_byte_ms: 1500, response_ms: 2500 }";
  replaceOnce(
    "models:\n",
    `  - { name: strict-openai, shape: openai, base_url: "${strictUrl}/v1", secret_env: TEST_SIMULATOR_KEY, ${timeouts} }
  - { name: strict-anthropic, shape: anthropic, base_url: "${strictUrl}", secret_env: TEST_SIMULATOR_KEY, ${timeouts} }
models:
  - name: claude-opus-5-5
    prices: { input: "5", output: "25" }
    capabilities: { max_output_tokens: 128000, mid_conversation_system: true, sampling: false }
    targets: [ { upstream: strict-anthropic, model: claude-opus-5-5 } ]
  - name: claude-sonnet-4-5
    prices: { input: "3", output: "15" }
    capabilities: { max_output_tokens: 64000 }
    targets: [ { upstream: strict-anthropic, model: claude-sonnet-4-5-20250929 } ]
  - name: gpt-4o-mini
    prices: { input: "0.15", output: "0.60" }
    capabilities: { max_output_tokens: 16384 }
    targets: [ { upstream: strict-openai, model: gpt-4o-mini } ]
  - name: gpt-5-mini
    prices: { input: "0.25", output: "2" }
    capabilities: { max_output_tokens: 128000, reasoning: true }
    targets: [ { upstream: strict-openai, model: gpt-5-mini } ]
`,
  );
  replaceOnce(
    "server_options:\n",
    `server_options:
  - { name: forward, models: [claude-opus-5-5, claude-sonnet-4-5, gpt-4o-mini, gpt-5-mini] }
  - { name: forward-strict, models: [claude-opus-5-5, claude-sonnet-4-5, gpt-4o-mini], strict_params: true }
`,
  );
  return text();
}

beforeAll(async () => {
  stack = await startStack();
  strictSimulator = await startSimulator({ apiKey: SIMULATOR_SECRET, strict: true });
  await applyGatewayFile(stack.controlPlane.db.prisma, stack.controlPlane.records, parseGatewayFile(forwardCompatYaml(stack.simulator.url, strictSimulator.url)));
  key = (await stack.mintKey({ serverOption: "forward" })).key;
  strictKey = (await stack.mintKey({ serverOption: "forward-strict" })).key;
  // The re-applied file reaches the proxy through its routing refresh.
  const deadline = Date.now() + 5_000;
  while ((await post("/v1/chat/completions", { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] })).status !== 200 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}, 60_000);
afterAll(async () => {
  await stack?.close();
  await strictSimulator?.close();
});
beforeEach(() => strictSimulator.stats.clear());

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

async function post(path: string, body: unknown, options: { key?: string; headers?: Record<string, string> } = {}): Promise<Answer> {
  const response = await fetch(`${stack.proxy.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${options.key ?? key}`, "content-type": "application/json", "anthropic-version": "2023-06-01", ...options.headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

const dropped = (answer: Answer): string[] => answer.headers.get(DROPPED)?.split(", ") ?? [];

/** The one request the strict simulator received, which it answered 200. */
function upstreamRequest(): StatsRecord & { body: Record<string, unknown> } {
  expect(strictSimulator.stats.requests).toHaveLength(1);
  const record = strictSimulator.stats.requests[0]!;
  expect(record.status).toBe(200);
  return record as StatsRecord & { body: Record<string, unknown> };
}

interface Recording {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}
const recording = (name: string) => JSON.parse(readFileSync(new URL(`client-compat/fixtures/claude-code-2.1/${name}`, import.meta.url), "utf8")) as Recording;

async function replay(rec: Recording, body: Record<string, unknown> = rec.body, apiKey = key): Promise<Answer> {
  return post(rec.path, body, { key: apiKey, headers: rec.headers });
}

type Message = { role: string; content: unknown };

describe("Claude Code 2.1 (issue 36: it was refused with 400 messages.1.role)", () => {
  it("its default model, which takes mid-conversation system messages: the request reaches the upstream untouched, the answer streams", async () => {
    const rec = recording("default-model-system-role.json");
    const answer = await replay(rec);
    expect(answer.status, answer.text.slice(0, 300)).toBe(200);
    expect(answer.text).toContain("event: message_stop");
    expect(answer.headers.get(DROPPED)).toBeNull();
    const sent = upstreamRequest();
    // The client's own bytes: nothing was removed, folded or re-serialised.
    expect(sent.bodyBytes).toBe(Buffer.byteLength(JSON.stringify(rec.body)));
    expect(sent.body.messages).toEqual(rec.body.messages);
    expect((sent.body.messages as Message[]).map((message) => message.role)).toEqual(["user", "system"]);
  });

  it("a Claude model before 4.8: the system message becomes a <system-reminder> user turn, not listed as dropped", async () => {
    const rec = recording("default-model-system-role.json");
    const answer = await replay(rec, { ...rec.body, model: "claude-sonnet-4-5", max_tokens: 32000 });
    expect(answer.status, answer.text.slice(0, 300)).toBe(200);
    expect(answer.headers.get(DROPPED)).toBeNull();
    const messages = upstreamRequest().body.messages as Message[];
    expect(messages.map((message) => message.role)).toEqual(["user", "user"]);
    expect(messages[0]).toEqual((rec.body.messages as Message[])[0]);
    const [reminder] = messages[1]!.content as { type: string; text: string; cache_control?: unknown }[];
    const system = ((rec.body.messages as Message[])[1]!.content as { text: string }[])[0]!;
    expect(reminder!.text).toMatch(REMINDER);
    expect(reminder!.text).toBe(`<system-reminder>\n${system.text}\n</system-reminder>`);
    expect(reminder!.cache_control).toEqual({ type: "ephemeral" });
  });

  it("on gpt-4o-mini: no reasoning_effort and no more than 16384 output tokens upstream; the system message stays in its place", async () => {
    const rec = recording("gpt-4o-mini-system-role.json");
    const answer = await replay(rec);
    expect(answer.status, answer.text.slice(0, 300)).toBe(200);
    expect(answer.text).toContain("event: message_stop");
    const sent = upstreamRequest().body;
    expect(sent).not.toHaveProperty("reasoning_effort");
    expect(sent.max_completion_tokens).toBe(16384);
    expect((sent.messages as Message[]).map((message) => message.role)).toEqual(["system", "user", "system"]);
    expect(dropped(answer)).toEqual(expect.arrayContaining(["max_tokens", "thinking", "output_config.effort"]));
  });

  it("on gpt-4o-mini under strict_params: the 400 names thinking, and nothing reaches the upstream", async () => {
    const rec = recording("gpt-4o-mini-system-role.json");
    const answer = await replay(rec, { ...rec.body, max_tokens: 1000 }, strictKey);
    expect(answer.status).toBe(400);
    const error = (JSON.parse(answer.text) as { error: { code: string; param: string } }).error;
    expect([error.code, error.param]).toEqual(["unsupported_feature", "thinking"]);
    expect(strictSimulator.stats.requests).toHaveLength(0);
  });
});

describe("capabilities: what the model does not take never reaches it", () => {
  it("chat reasoning_effort to gpt-4o-mini is dropped and listed; to gpt-5-mini it passes with the client's bytes", async () => {
    const body = { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }], reasoning_effort: "high", max_completion_tokens: 50 };
    const answer = await post("/v1/chat/completions", body);
    expect(answer.status, answer.text).toBe(200);
    expect(dropped(answer)).toEqual(["reasoning_effort"]);
    expect(upstreamRequest().body).not.toHaveProperty("reasoning_effort");

    strictSimulator.stats.clear();
    const text = JSON.stringify({ ...body, model: "gpt-5-mini" }, null, 2);
    const reasoning = await post("/v1/chat/completions", text);
    expect(reasoning.status, reasoning.text).toBe(200);
    expect(reasoning.headers.get(DROPPED)).toBeNull();
    const sent = upstreamRequest();
    expect(sent.body.reasoning_effort).toBe("high");
    expect(sent.bodyBytes).toBe(Buffer.byteLength(text));
  });

  it("the common request to a model without reasoning: nothing dropped, the client's bytes as they came", async () => {
    const text = JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }], max_completion_tokens: 50, temperature: 0.3 }, null, 2);
    const answer = await post("/v1/chat/completions", text);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.headers.get(DROPPED)).toBeNull();
    expect(upstreamRequest().bodyBytes).toBe(Buffer.byteLength(text));
  });

  it("Responses reasoning to gpt-4o-mini: reasoning.effort and the encrypted-reasoning include are dropped and listed", async () => {
    const answer = await post("/v1/responses", { model: "gpt-4o-mini", input: "hi", reasoning: { effort: "low" }, include: ["reasoning.encrypted_content"], max_output_tokens: 50 });
    expect(answer.status, answer.text).toBe(200);
    expect(dropped(answer)).toEqual(["reasoning.effort", "include[0]"]);
    const sent = upstreamRequest().body;
    expect(sent).not.toHaveProperty("reasoning");
    expect(sent).not.toHaveProperty("include");
  });

  it("sampling to a Claude 5 model without it (anthropic-version 2026-10-21): dropped and listed; refused under strict_params", async () => {
    const body = { model: "claude-opus-5-5", max_tokens: 50, messages: [{ role: "user", content: "hi" }], temperature: 0.5, top_k: 5 };
    const headers = { "anthropic-version": "2026-10-21" };
    const answer = await post("/v1/messages", body, { headers });
    expect(answer.status, answer.text).toBe(200);
    expect(dropped(answer)).toEqual(["temperature", "top_k"]);
    const sent = upstreamRequest().body;
    expect(sent).not.toHaveProperty("temperature");
    expect(sent).not.toHaveProperty("top_k");

    strictSimulator.stats.clear();
    const strict = await post("/v1/messages", body, { headers, key: strictKey });
    expect(strict.status).toBe(400);
    expect((JSON.parse(strict.text) as { error: { param: string } }).error.param).toBe("temperature");
    expect(strictSimulator.stats.requests).toHaveLength(0);
  });
});

describe("count_tokens drops what /v1/messages drops (capabilities), so the two agree", () => {
  const conversation = [{ role: "user", content: "How many tokens is this?" }];

  it("thinking to gpt-4o-mini (no reasoning): counted without it, listed as /v1/messages lists it; refused under strict_params", async () => {
    const body = { model: "gpt-4o-mini", messages: conversation, thinking: { type: "enabled", budget_tokens: 2048 }, output_config: { effort: "high" } };
    const counted = await post("/v1/messages/count_tokens", body);
    expect(counted.status, counted.text).toBe(200);
    expect(dropped(counted)).toEqual(["thinking", "output_config.effort"]);
    const plain = await post("/v1/messages/count_tokens", { model: "gpt-4o-mini", messages: conversation });
    expect(JSON.parse(counted.text)).toEqual(JSON.parse(plain.text));
    const messaged = await post("/v1/messages", { ...body, max_tokens: 50 });
    expect(messaged.status, messaged.text).toBe(200);
    expect(dropped(messaged)).toEqual(dropped(counted));
    expect(strictSimulator.stats.requests.map((record) => record.path)).toEqual(["/v1/chat/completions"]);

    strictSimulator.stats.clear();
    const strict = await post("/v1/messages/count_tokens", body, { key: strictKey });
    expect(strict.status).toBe(400);
    expect((JSON.parse(strict.text) as { error: { code: string; param: string } }).error).toMatchObject({ code: "unsupported_feature", param: "thinking" });
  });

  it("sampling to a Claude 5 model without it: the forwarded count carries none, listed", async () => {
    const counted = await post("/v1/messages/count_tokens", { model: "claude-opus-5-5", messages: conversation, temperature: 0.5, top_k: 5 });
    expect(counted.status, counted.text).toBe(200);
    expect(dropped(counted)).toEqual(["temperature", "top_k"]);
    const sent = upstreamRequest();
    expect(sent.path).toBe("/v1/messages/count_tokens");
    expect(sent.body).toEqual({ model: "claude-opus-5-5", messages: conversation });
  });
});

describe("chat -> Anthropic: a later system or developer message", () => {
  const conversation = [
    { role: "system", content: "You are terse." },
    { role: "user", content: "hi" },
    { role: "assistant", content: "hello" },
    { role: "developer", content: "From now on, answer in French." },
    { role: "user", content: "and now?" },
  ];

  it("to a model that takes it: a system message in its place", async () => {
    const answer = await post("/v1/chat/completions", { model: "claude-opus-5-5", messages: conversation });
    expect(answer.status, answer.text).toBe(200);
    const sent = upstreamRequest().body;
    expect(sent.system).toBe("You are terse.");
    expect((sent.messages as Message[]).map((message) => message.role)).toEqual(["user", "assistant", "system", "user"]);
  });

  it("to a model that does not: a <system-reminder> at the start of the next user turn", async () => {
    const answer = await post("/v1/chat/completions", { model: "claude-sonnet-4-5", messages: conversation });
    expect(answer.status, answer.text).toBe(200);
    const messages = upstreamRequest().body.messages as Message[];
    expect(messages.map((message) => message.role)).toEqual(["user", "assistant", "user"]);
    expect(messages[2]!.content).toEqual([
      { type: "text", text: "<system-reminder>\nFrom now on, answer in French.\n</system-reminder>" },
      { type: "text", text: "and now?" },
    ]);
  });
});

describe("Responses -> Anthropic: a later developer message (Codex sends them mid-session)", () => {
  const input = [
    { role: "developer", content: "You are terse." },
    { role: "user", content: "List files" },
    { type: "function_call", call_id: "call_1", name: "shell", arguments: '{"cmd":"ls"}' },
    { role: "developer", content: "The sandbox is now read-only." },
    { type: "function_call_output", call_id: "call_1", output: "a.txt" },
    { role: "user", content: "and now?" },
  ];
  const tools = [{ type: "function", name: "shell", parameters: { type: "object", properties: { cmd: { type: "string" } } } }];

  it("to a model that takes it: a system message in its place, after the tool result it came before", async () => {
    const answer = await post("/v1/responses", { model: "claude-opus-5-5", input, tools, max_output_tokens: 50 });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.headers.get(DROPPED)).toBeNull();
    const sent = upstreamRequest().body;
    expect(sent.system).toBe("You are terse.");
    const messages = sent.messages as Message[];
    expect(messages.map((message) => message.role)).toEqual(["user", "assistant", "user", "system", "user"]);
    expect(messages[3]!.content).toEqual([{ type: "text", text: "The sandbox is now read-only." }]);
  });

  it("to a model that does not: a <system-reminder> after the tool result, not listed", async () => {
    const answer = await post("/v1/responses", { model: "claude-sonnet-4-5", input, tools, max_output_tokens: 50 });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.headers.get(DROPPED)).toBeNull();
    const messages = upstreamRequest().body.messages as Message[];
    expect(messages.map((message) => message.role)).toEqual(["user", "assistant", "user", "user"]);
    expect(messages[2]!.content).toEqual([
      { type: "tool_result", tool_use_id: "call_1", content: "a.txt" },
    ]);
    expect(messages[3]!.content).toEqual([
      { type: "text", text: "<system-reminder>\nThe sandbox is now read-only.\n</system-reminder>" },
      { type: "text", text: "and now?" },
    ]);
  });
});

describe("same shape, the provider decides", () => {
  it.each<[string, string, Record<string, unknown>]>([
    ["a role the gateway does not know", "/v1/messages", { model: "claude-opus-5-5", max_tokens: 20, messages: [{ role: "user", content: "hi" }, { role: "critic", content: "hmm" }] }],
    ["a content block type the gateway does not know", "/v1/messages", { model: "claude-opus-5-5", max_tokens: 20, messages: [{ role: "user", content: [{ type: "hologram", data: "x" }, { type: "text", text: "hi" }] }] }],
    ["an unknown top-level field", "/v1/messages", { model: "claude-opus-5-5", max_tokens: 20, messages: [{ role: "user", content: "hi" }], per_turn_control: { mode: "x" } }],
    ["a chat role the gateway does not know", "/v1/chat/completions", { model: "gpt-4o-mini", messages: [{ role: "critic", content: "hmm" }], max_completion_tokens: 20 }],
  ])("%s reaches the upstream untouched; the client gets the upstream's own answer", async (_name, path, body) => {
    const answer = await post(path, body);
    expect(strictSimulator.stats.requests).toHaveLength(1);
    const record = strictSimulator.stats.requests[0]!;
    expect(record.body).toEqual(body);
    expect(answer.status).toBe(record.status);
    expect(answer.status).toBeLessThan(500);
  });
});
