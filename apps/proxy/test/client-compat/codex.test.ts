import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { Stream } from "openai/core/streaming";
import { droppedParams, expectedText, expectResponsesEventOrder, fixture, recording as loadRecording, replayHeaders, reported, startCompatStack, type CompatStack, type Recording } from "./compat-stack.ts";

/**
 * Recorded Codex CLI 0.171.0 requests (fixtures/codex-0.171.0, `pnpm clients:record`: `POST
 * /v1/responses`, streamed, with Codex's headers, developer message items, the `exec_command`
 * function tool and its function_call / function_call_output items, the `multi_agent_v1` and
 * `web_search` tools, `reasoning`, `include: ["reasoning.encrypted_content"]`, `store: false`,
 * `prompt_cache_key`, `client_metadata`; the built-in provider's WebSocket attempt and its
 * default-model request), replayed over raw HTTP with the real key as `authorization`, to both
 * models, and read with the official `openai` SDK's own stream parser.
 *
 * Codex 0.171 on a custom provider sends no freeform (custom) tool and the simulator gives it no
 * reasoning item to send back: those kinds replay Codex 0.46's recordings (fixtures/codex/).
 */
let compat: CompatStack;

beforeAll(async () => {
  compat = await startCompatStack({ compatFile: true });
});
afterAll(async () => compat?.close());
beforeEach(() => compat.resetUpstream());

const CURRENT = "codex-0.171.0";
const recording = (name: string) => loadRecording(`${CURRENT}/${name}`);
/** Codex 0.46's recordings (no credential header: the SDK path adds the key). */
const older = (name: string) => fixture(`codex/${name}`) as unknown as Recording;

const TARGETS = [
  { model: "gpt-test", shape: "openai" as const },
  { model: "claude-test", shape: "anthropic" as const },
];

interface Outcome {
  events: OpenAI.Responses.ResponseStreamEvent[];
  response: OpenAI.Responses.Response;
  headers: Headers;
}

/** Replays `rec` with `model` over raw HTTP; the stream read by the SDK's own SSE parser (throws on an error event). */
async function send(rec: Recording, model: string, overrides: Record<string, unknown> = {}, key = compat.key): Promise<Outcome> {
  const headers = replayHeaders(rec, key);
  if (!("authorization" in headers)) headers.authorization = `Bearer ${key}`;
  const answer = await fetch(`${compat.url}${rec.path}`, { method: rec.method, headers, body: JSON.stringify({ ...rec.body, ...overrides, model }) });
  if (answer.status !== 200) expect.fail(`${answer.status} ${await answer.text()}`);
  expect(answer.headers.get("content-type")).toMatch(/^text\/event-stream/);
  const events: OpenAI.Responses.ResponseStreamEvent[] = [];
  for await (const event of Stream.fromSSEResponse<OpenAI.Responses.ResponseStreamEvent>(answer, new AbortController())) events.push(event);
  expectResponsesEventOrder(events);
  const completed = events.at(-1) as OpenAI.Responses.ResponseCompletedEvent;
  expect(completed.response.status).toBe("completed");
  return { events, response: completed.response, headers: answer.headers };
}

function expectUsage(response: OpenAI.Responses.Response): void {
  const usage = reported(compat.lastUpstream());
  expect(response.usage).toMatchObject({ input_tokens: usage.input, output_tokens: usage.output, total_tokens: usage.input + usage.output });
}

/** The simulator's seed: the text of the last user message it received (Responses input items or Messages). */
function seedOfUpstream(): string {
  const body = compat.lastUpstream().body as { input?: unknown[]; messages?: unknown[] };
  return lastUserText((body.input ?? body.messages ?? []) as Item[]);
}

type Item = { role?: string; type?: string; content?: unknown };

function lastUserText(items: Item[]): string {
  for (const item of [...items].reverse()) {
    if (item.role !== "user" || (item.type !== undefined && item.type !== "message")) continue;
    const content = item.content;
    const text =
      typeof content === "string"
        ? content
        : ((content ?? []) as { type: string; text?: string }[])
            .filter((part) => ["text", "input_text", "output_text"].includes(part.type) && typeof part.text === "string")
            .map((part) => part.text!)
            .join("\n");
    if (text.length > 0) return text;
  }
  return "";
}

type AnthropicTool = { name: string; type?: string; input_schema?: unknown };

function expectPassThroughOrTranslated(rec: Recording, shape: "openai" | "anthropic", headers: Headers): void {
  const upstream = compat.lastUpstream();
  if (shape === "openai") {
    // Same shape: the body goes untouched (client_metadata, reasoning, include, web_search, ...), only the model renamed.
    expect(upstream.path).toBe("/v1/responses");
    expect(upstream.body).toEqual({ ...rec.body, model: upstream.model });
    expect(upstream.model).toMatch(/^gpt-upstream-[ab]$/);
    expect(headers.get("x-gateway-dropped-params")).toBeNull();
  } else {
    expect(upstream.path).toBe("/v1/messages");
    expect(upstream.model).toMatch(/^claude-(upstream-[ab]|opus-5-5)$/);
    const sent = upstream.body as { system?: unknown; tools: AnthropicTool[]; stream: boolean; tool_choice: unknown };
    expect(sent.stream).toBe(true);
    // tool_choice "auto" with parallel_tool_calls: true.
    expect(sent.tool_choice).toEqual({ type: "auto" });
    // The developer items become the system prompt.
    expect(JSON.stringify(sent.system)).toContain("You are a coding agent running in the Codex CLI");
    // Every function tool reaches the model by its name (namespace tools flattened), web_search as Anthropic's server tool.
    const names = sent.tools.map((tool) => tool.name);
    const functions = (rec.body.tools as { type: string; name?: string }[]).filter((tool) => tool.type === "function").map((tool) => tool.name!);
    expect(names).toEqual(expect.arrayContaining(functions));
    expect(names.some((name) => name.startsWith("multi_agent_v1"))).toBe(true);
    expect(sent.tools.find((tool) => tool.type?.startsWith("web_search_"))).toMatchObject({ name: "web_search" });
    // Codex's bookkeeping is dropped and listed; nothing else.
    expect(droppedParams(headers).sort()).toEqual(["client_metadata", "prompt_cache_key"]);
  }
}

describe.each(TARGETS)("Codex 0.171 (custom provider) on $model ($shape-shape upstream)", ({ model, shape }) => {
  it("turn 1: the task, streamed: an exec_command function_call", async () => {
    const rec = recording("turn-1-function-call.json");
    const { response, headers, events } = await send(rec, model);
    const calls = response.output.filter((item): item is OpenAI.Responses.ResponseFunctionToolCall => item.type === "function_call");
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ type: "function_call", name: "exec_command", status: "completed" });
    expect(JSON.parse(calls[0]!.arguments)).toEqual({ cmd: "echo hello" });
    const argumentDeltas = events.filter((event) => event.type === "response.function_call_arguments.delta").map((event) => event.delta);
    expect(argumentDeltas.join("")).toBe(calls[0]!.arguments);
    expectUsage(response);
    expectPassThroughOrTranslated(rec, shape, headers);
  });

  it("turn 2: the function_call and its function_call_output, streamed: the answer text", async () => {
    const rec = recording("turn-2-after-tool-output.json");
    const { response, headers, events } = await send(rec, model);
    const messages = response.output.filter((item): item is OpenAI.Responses.ResponseOutputMessage => item.type === "message");
    expect(messages).toHaveLength(1);
    const text = messages[0]!.content.map((part) => (part.type === "output_text" ? part.text : "")).join("");
    expect(text).toBe(expectedText(seedOfUpstream()));
    // Same shape the seed is the recorded prompt; to Messages, consecutive user items make one user turn.
    if (shape === "openai") expect(text).toBe(expectedText(lastUserText(rec.body.input as Item[])));
    const deltas = events.filter((event) => event.type === "response.output_text.delta").map((event) => event.delta);
    expect(deltas.join("")).toBe(text);
    expectUsage(response);
    expectPassThroughOrTranslated(rec, shape, headers);
    if (shape === "anthropic") {
      const sent = compat.lastUpstream().body as { messages: { role: string; content: { type: string; id?: string; tool_use_id?: string; input?: unknown; content?: unknown }[] }[] };
      const blocks = sent.messages.flatMap((message) => (Array.isArray(message.content) ? message.content : []));
      expect(blocks.find((block) => block.type === "tool_use")).toMatchObject({ id: "call_u7g20t0l000000000j", input: { cmd: "echo hello" } });
      const result = blocks.find((block) => block.type === "tool_result");
      expect(result).toMatchObject({ tool_use_id: "call_u7g20t0l000000000j" });
      expect(JSON.stringify(result!.content)).toContain("Output:\\nhello\\n");
    }
  });

  it("on a Claude model name (claude-sonnet-5-5, recorded): streamed, completed, usage as reported", async () => {
    const rec = recording("claude-sonnet-5-5.json");
    expect(rec.body.model).toBe("claude-sonnet-5-5");
    // The Anthropic-shape model by the recorded name (an alias of the suite's Claude 5.5 model); the OpenAI-shape one by its own.
    const { response, headers } = await send(rec, shape === "anthropic" ? "claude-sonnet-5-5" : model);
    expect(response.output.length).toBeGreaterThan(0);
    expectUsage(response);
    expectPassThroughOrTranslated(rec, shape, headers);
  });
});

describe("Codex 0.171's built-in provider", () => {
  it("its WebSocket attempt (GET /v1/responses, Upgrade: websocket), 426 when recorded: now switches protocols (Responses over WebSocket, contract section 18)", async () => {
    const rec = recording("builtin-ws-upgrade.json");
    expect(rec.status).toBe(426);
    const url = new URL(`${compat.url}${rec.path}`);
    const headers = { ...replayHeaders(rec, compat.key), connection: "Upgrade", host: url.host };
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest({ host: url.hostname, port: url.port, method: rec.method, path: rec.path, headers });
      req.on("response", (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
      });
      req.on("upgrade", (res, socket) => {
        socket.destroy();
        resolve({ status: res.statusCode ?? 101, body: "" });
      });
      req.on("error", reject);
      req.end();
    });
    expect(answer.status, answer.body).toBe(101);
    expect(compat.upstream()).toHaveLength(0);
  });

  it("its default model's request (gpt-6.2-sol: additional_tools with a namespace, reasoning context, text.verbosity) on the OpenAI-shape model: untouched, the answer text", async () => {
    const rec = recording("builtin-default-model.json");
    expect(rec.body.model).toBe("gpt-6.2-sol");
    const { response, headers } = await send(rec, "gpt-test");
    const messages = response.output.filter((item): item is OpenAI.Responses.ResponseOutputMessage => item.type === "message");
    const text = messages.flatMap((message) => message.content).map((part) => (part.type === "output_text" ? part.text : "")).join("");
    expect(text).toBe(expectedText(lastUserText(rec.body.input as Item[])));
    expectUsage(response);
    const upstream = compat.lastUpstream();
    expect(upstream.path).toBe("/v1/responses");
    expect(upstream.body).toEqual({ ...rec.body, model: upstream.model });
    expect(headers.get("x-gateway-dropped-params")).toBeNull();
  });
});

describe("Codex 0.46's freeform tool and reasoning items on the Anthropic-shape model", () => {
  const viaSdk = async (rec: Recording, model: string, overrides: Record<string, unknown> = {}) => {
    const body = { ...rec.body, ...overrides, model } as unknown as OpenAI.Responses.ResponseCreateParamsStreaming;
    const { data: stream } = await compat.openai.responses.create(body, { headers: rec.headers }).withResponse();
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    expectResponsesEventOrder(events);
    return (events.at(-1) as OpenAI.Responses.ResponseCompletedEvent).response;
  };

  it("the model calls apply_patch: Codex gets a custom_tool_call with string input", async () => {
    const rec = older("turn-1-function-call.json");
    const tools = rec.body.tools as { name: string }[];
    const applyPatchFirst = [...tools.filter((tool) => tool.name === "apply_patch"), ...tools.filter((tool) => tool.name !== "apply_patch")];
    const response = await viaSdk(rec, "claude-test", { tools: applyPatchFirst });
    const calls = response.output.filter((item) => item.type === "custom_tool_call");
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ type: "custom_tool_call", name: "apply_patch" });
    expect(typeof (calls[0] as OpenAI.Responses.ResponseCustomToolCall).input).toBe("string");
    expect(response.output.some((item) => item.type === "function_call")).toBe(false);
    expectUsage(response);
  });

  it("a reasoning item with encrypted_content, shell and apply_patch calls with their outputs: the answer text, the calls carried", async () => {
    const rec = older("turn-2-after-tool-outputs.json");
    const response = await viaSdk(rec, "claude-test");
    const text = response.output.flatMap((item) => (item.type === "message" ? item.content : [])).map((part) => (part.type === "output_text" ? part.text : "")).join("");
    expect(text).toBe(expectedText(seedOfUpstream()));
    expectUsage(response);
    const sent = JSON.stringify(compat.lastUpstream().body);
    expect(sent).toContain("*** Begin Patch\\n*** Update File: src/cart/total.ts");
    expect(sent).toContain("Success. Updated the following files");
    expect(sent).toContain("call_H7kP2nV5xM9qT3wR6yL1bZ4d");
    expect(sent).toContain("call_Q3bX9mW2kL7pR4tN8vY1sZ6c");
  });
});

describe("Codex 0.171 on a server option with strict_params", () => {
  it("on the Anthropic-shape model, what would be dropped is refused: 400 unsupported_feature naming one of the dropped paths", async () => {
    const rec = recording("turn-1-function-call.json");
    const lenient = await send(rec, "claude-test");
    const wouldDrop = droppedParams(lenient.headers);
    expect(wouldDrop).toContain("client_metadata");

    compat.resetUpstream();
    const { key } = await compat.stack.mintKey({ serverOption: "compat-strict" });
    const answer = await fetch(`${compat.url}${rec.path}`, { method: rec.method, headers: replayHeaders(rec, key), body: JSON.stringify({ ...rec.body, model: "claude-test" }) });
    expect(answer.status).toBe(400);
    const error = ((await answer.json()) as { error: { type: string; code: string; param: string } }).error;
    expect(error).toMatchObject({ type: "invalid_request_error", code: "unsupported_feature" });
    expect(wouldDrop).toContain(error.param);
    expect(compat.upstream()).toHaveLength(0);
  });

  it("on the OpenAI-shape model, the same request passes untouched: 200", async () => {
    const { key } = await compat.stack.mintKey({ serverOption: "compat-strict" });
    const rec = recording("turn-1-function-call.json");
    const { headers } = await send(rec, "gpt-test", {}, key);
    expect(headers.get("x-gateway-dropped-params")).toBeNull();
    expect(compat.lastUpstream().body).toEqual({ ...rec.body, model: compat.lastUpstream().model });
  });
});
