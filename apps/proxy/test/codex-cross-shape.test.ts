import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { droppedParams, expectResponsesEventOrder, fixture, startCompatStack, type CompatStack } from "./client-compat/compat-stack.ts";

/**
 * Codex 0.171 on models served through another API (contract section 15, issue 36): its real
 * requests, refused 400 by the gateway on 2026-11-27 (`client-compat/fixtures/codex-0.171/`, from
 * the client captures: `client_metadata`, a `namespace` tool holding its sub-agent functions, a
 * `{type: "web_search", external_web_access: false}` tool), replayed through the real stack with
 * the official `openai` SDK to `claude-test` (an Anthropic-shape upstream) and `gpt-chat-only` (an
 * OpenAI upstream without the Responses API). Each is answered; what could not be carried is listed
 * in `x-gateway-dropped-params`.
 */
let compat: CompatStack;
let chatOnly: OpenAI;

beforeAll(async () => {
  compat = await startCompatStack({ compatFile: true });
  const { key } = await compat.stack.mintKey({ serverOption: "cross-shape" });
  chatOnly = new OpenAI({ baseURL: `${compat.url}/v1`, apiKey: key, maxRetries: 0 });
});
afterAll(async () => compat?.close());
beforeEach(() => compat.resetUpstream());

interface Recording {
  headers: Record<string, string>;
  body: Record<string, unknown> & { input: { role?: string; content?: { type: string; text: string }[] }[]; tools: Record<string, unknown>[] };
}
const recording = (name: string) => structuredClone(fixture(`codex-0.171/${name}`)) as unknown as Recording;
const CAPTURES = ["client-metadata.json", "namespace-tool.json", "web-search-tool.json"];

/** The sub-agent tools of Codex's `multi_agent_v1` namespace, as the upstream sees them. */
const MULTI_AGENT = ["close_agent", "resume_agent", "send_input", "spawn_agent", "wait_agent"].map((name) => `multi_agent_v1__${name}`);

const TARGETS = [
  { model: "claude-test", shape: "anthropic" as const, client: () => compat.openai },
  { model: "gpt-chat-only", shape: "chat" as const, client: () => chatOnly },
];

/** The recording with `directive` (a `#sim:` instruction to the simulator) added to Codex's last user message. */
function withDirective(rec: Recording, directive: string): Recording {
  const last = rec.body.input.at(-1)!;
  last.content![0]!.text += ` ${directive}`;
  return rec;
}

function webSearchIndex(rec: Recording): number {
  return rec.body.tools.findIndex((tool) => tool.type === "web_search");
}

/** The upstream tool names the recording's tools become (web search aside): functions as they are, the namespace flattened. */
function flatToolNames(rec: Recording): string[] {
  return rec.body.tools.flatMap((tool) => (tool.type === "namespace" ? MULTI_AGENT : tool.type === "function" ? [String(tool.name)] : []));
}

interface Streamed {
  events: OpenAI.Responses.ResponseStreamEvent[];
  response: OpenAI.Responses.Response;
  headers: Headers;
}

/** The answer's text (the SDK's `output_text` exists only on its own final responses). */
function textOf(response: OpenAI.Responses.Response): string {
  return response.output
    .flatMap((item) => (item.type === "message" ? item.content : []))
    .map((part) => (part.type === "output_text" ? part.text : ""))
    .join("");
}

async function stream(client: OpenAI, rec: Recording, model: string): Promise<Streamed> {
  const body = { ...rec.body, model } as unknown as OpenAI.Responses.ResponseCreateParamsStreaming;
  const { data, response } = await client.responses.create(body, { headers: rec.headers }).withResponse();
  expect(response.status).toBe(200);
  const events: OpenAI.Responses.ResponseStreamEvent[] = [];
  for await (const event of data) events.push(event);
  expectResponsesEventOrder(events);
  const completed = events.at(-1) as OpenAI.Responses.ResponseCompletedEvent;
  expect(completed.response.status).toBe("completed");
  return { events, response: completed.response, headers: response.headers };
}

describe.each(TARGETS)("Codex 0.171 on $model ($shape upstream)", ({ model, shape, client }) => {
  it.each(CAPTURES)("%s, refused 400 before: answered, streamed whole, what could not be carried listed", async (name) => {
    const rec = recording(name);
    const { response, headers } = await stream(client(), rec, model);
    // Outside its strict mode the simulator calls the first function tool: Codex's exec_command.
    expect(response.output).toEqual([expect.objectContaining({ type: "function_call", name: "exec_command", status: "completed" })]);
    expect((response.output[0] as OpenAI.Responses.ResponseFunctionToolCall).namespace).toBeUndefined();

    const dropped = droppedParams(headers);
    const web = webSearchIndex(rec);
    expect(dropped.includes("client_metadata")).toBe("client_metadata" in rec.body);
    const upstream = compat.lastUpstream();
    const sent = upstream.body as { tools: Record<string, unknown>[] };
    expect(JSON.stringify(sent)).not.toContain("client_metadata");
    expect(JSON.stringify(sent)).not.toContain("x-codex-installation-id");
    if (shape === "anthropic") {
      expect(upstream.path).toBe("/v1/messages");
      expect(sent.tools.filter((tool) => tool.type === undefined).map((tool) => tool.name)).toEqual(flatToolNames(rec));
      expect(sent.tools.filter((tool) => tool.type !== undefined)).toEqual([{ type: "web_search_20250305", name: "web_search" }]);
      // The cached-only search mode and the cache key have no Anthropic equivalent; encrypted reasoning is met.
      expect(dropped).toEqual(expect.arrayContaining([`tools[${web}].external_web_access`, "prompt_cache_key"]));
      expect(dropped).not.toContain("include[0]");
    } else {
      expect(upstream.path).toBe("/v1/chat/completions");
      const functions = (sent.tools as { type: string; function: { name: string } }[]).map((tool) => tool.function.name);
      expect(functions).toEqual(flatToolNames(rec));
      // No web search on Chat Completions: the tool is dropped, the answer given without it.
      expect(dropped).toEqual(expect.arrayContaining([`tools[${web}]`, "include[0]", "reasoning.summary"]));
    }
  });

  it("the model calls a sub-agent tool: a function_call with namespace multi_agent_v1 and name spawn_agent, streamed and as JSON; the next turn sends it back", async () => {
    const rec = withDirective(recording("namespace-tool.json"), "#sim:tool=multi_agent_v1__spawn_agent");
    const { events, response } = await stream(client(), rec, model);
    const calls = response.output.filter((item): item is OpenAI.Responses.ResponseFunctionToolCall => item.type === "function_call");
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ type: "function_call", name: "spawn_agent", namespace: "multi_agent_v1", status: "completed" });
    const added = events.find((event): event is OpenAI.Responses.ResponseOutputItemAddedEvent => event.type === "response.output_item.added" && event.item.type === "function_call");
    expect(added?.item).toMatchObject({ name: "spawn_agent", namespace: "multi_agent_v1" });
    const deltas = events.filter((event) => event.type === "response.function_call_arguments.delta").map((event) => event.delta);
    expect(deltas.join("")).toBe(calls[0]!.arguments);
    expect(JSON.parse(calls[0]!.arguments)).toBeTypeOf("object");

    compat.resetUpstream();
    const json = await client().responses.create({ ...rec.body, model, stream: false } as unknown as OpenAI.Responses.ResponseCreateParamsNonStreaming, { headers: rec.headers });
    expect(json.output.find((item) => item.type === "function_call")).toMatchObject({ name: "spawn_agent", namespace: "multi_agent_v1" });

    compat.resetUpstream();
    const call = calls[0]!;
    const next = recording("namespace-tool.json");
    next.body.input.push(
      { type: "function_call", call_id: call.call_id, name: call.name, namespace: call.namespace, arguments: call.arguments } as never,
      { type: "function_call_output", call_id: call.call_id, output: '{"agent_id":"agent-7"}' } as never,
    );
    const second = await stream(client(), next, model);
    expect(textOf(second.response).length).toBeGreaterThan(0);
    const sent = JSON.stringify(compat.lastUpstream().body);
    expect(sent).toContain("multi_agent_v1__spawn_agent");
    expect(sent).toContain("agent-7");
  });
});

describe("Codex on claude-test under strict_params", () => {
  it("what would be dropped is refused: 400 naming client_metadata, nothing sent upstream", async () => {
    const { key } = await compat.stack.mintKey({ serverOption: "compat-strict" });
    const strict = new OpenAI({ baseURL: `${compat.url}/v1`, apiKey: key, maxRetries: 0 });
    const rec = recording("client-metadata.json");
    const error = await strict.responses.create({ ...rec.body, model: "claude-test" } as unknown as OpenAI.Responses.ResponseCreateParamsStreaming, { headers: rec.headers }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error).toMatchObject({ status: 400, code: "unsupported_feature", param: "client_metadata" });
    expect(compat.upstream()).toHaveLength(0);
  });
});

describe("Codex's web search on claude-test: Anthropic's own server tool", () => {
  it("two searches come back as web_search_call items, streamed as OpenAI emits them, billed as two searches; the next turn drops them, listed", async () => {
    const rec = withDirective(recording("web-search-tool.json"), "#sim:web_search=2");
    const { events, response, headers } = await stream(compat.openai, rec, "claude-test");
    const searches = response.output.filter((item): item is OpenAI.Responses.ResponseFunctionWebSearch => item.type === "web_search_call");
    expect(searches).toHaveLength(2);
    for (const search of searches) {
      expect(search).toMatchObject({ status: "completed", action: { type: "search", query: expect.stringMatching(/\w/) } });
      const own = events.filter((event) => "item_id" in event && event.item_id === search.id).map((event) => event.type);
      expect(own).toEqual(["response.web_search_call.in_progress", "response.web_search_call.searching", "response.web_search_call.completed"]);
    }
    expect(response.output.slice(0, 2).map((item) => item.type)).toEqual(["web_search_call", "web_search_call"]);

    const requestId = headers.get("x-request-id");
    await expect.poll(async () => (await compat.stack.billingEvents(requestId!)).length, { timeout: 10_000 }).toBeGreaterThan(0);
    const [event] = await compat.stack.billingEvents(requestId!);
    expect(event!.usage).toMatchObject({ webSearchRequests: 2 });

    compat.resetUpstream();
    const next = recording("web-search-tool.json");
    const firstOutput = next.body.input.length;
    next.body.input.push(...(response.output as never[]), { type: "message", role: "user", content: [{ type: "input_text", text: "thanks" }] } as never);
    const second = await stream(compat.openai, next, "claude-test");
    expect(second.response.output.length).toBeGreaterThan(0);
    expect(droppedParams(second.headers)).toEqual(expect.arrayContaining([`input[${firstOutput}]`, `input[${firstOutput + 1}]`]));
  });

  it("as JSON: the same items", async () => {
    const rec = withDirective(recording("web-search-tool.json"), "#sim:web_search=1");
    const response = await compat.openai.responses.create({ ...rec.body, model: "claude-test", stream: false } as unknown as OpenAI.Responses.ResponseCreateParamsNonStreaming, { headers: rec.headers });
    expect(response.output.map((item) => item.type)).toEqual(["web_search_call", "function_call"]);
    expect(response.output[0]).toMatchObject({ type: "web_search_call", status: "completed", action: { type: "search" } });
  });

  it("on gpt-chat-only the search is not run: no web_search_call, the tool listed as dropped", async () => {
    const rec = withDirective(recording("web-search-tool.json"), "#sim:web_search=2");
    const { response, headers } = await stream(chatOnly, rec, "gpt-chat-only");
    expect(response.output.some((item) => item.type === "web_search_call")).toBe(false);
    expect(droppedParams(headers)).toContain(`tools[${webSearchIndex(rec)}]`);
  });
});

describe("the same-shape Responses pass-through", () => {
  it("gpt-test (an OpenAI upstream with the Responses API) gets Codex's body as it came, client_metadata, namespace and web_search included", async () => {
    const rec = recording("client-metadata.json");
    const { headers } = await stream(compat.openai, rec, "gpt-test");
    const upstream = compat.lastUpstream();
    expect(upstream.path).toBe("/v1/responses");
    // Only the model's own drops (models[].drop_params, capabilities) may touch it, each listed;
    // every other field goes as the client sent it.
    const touched = new Set(droppedParams(headers).map((path) => path.split(/[.[]/)[0]!));
    const sent = upstream.body as Record<string, unknown>;
    for (const [field, value] of Object.entries(rec.body)) if (field !== "model" && !touched.has(field)) expect(sent[field], field).toEqual(value);
    expect(sent.client_metadata).toEqual(rec.body.client_metadata);
    expect(sent.tools).toEqual(rec.body.tools);
    expect(droppedParams(headers)).not.toContain("client_metadata");
  });
});
