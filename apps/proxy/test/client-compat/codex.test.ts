import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { droppedParams, expectedText, expectResponsesEventOrder, fixture, reported, startCompatStack, type CompatStack } from "./compat-stack.ts";

/**
 * Recorded Codex CLI requests (fixtures/codex: `POST /v1/responses`, streamed, with Codex's
 * headers, `instructions`, message items, function_call / function_call_output and
 * custom_tool_call / custom_tool_call_output items, reasoning items with encrypted_content, the
 * `shell` function tool and the freeform `apply_patch` custom tool with its Lark grammar,
 * `reasoning`, `include: ["reasoning.encrypted_content"]`, `store: false`, `text.verbosity`,
 * `prompt_cache_key`), sent through the official `openai` SDK to both models.
 */
let compat: CompatStack;

beforeAll(async () => {
  compat = await startCompatStack({ compatFile: true });
});
afterAll(async () => compat?.close());
beforeEach(() => compat.resetUpstream());

interface Recording {
  headers: Record<string, string>;
  body: Record<string, unknown>;
}
const recording = (name: string) => fixture(`codex/${name}`) as unknown as Recording;

const TARGETS = [
  { model: "gpt-test", shape: "openai" as const },
  { model: "claude-test", shape: "anthropic" as const },
];

interface Outcome {
  events: OpenAI.Responses.ResponseStreamEvent[];
  response: OpenAI.Responses.Response;
  headers: Headers;
}

async function send(rec: Recording, model: string, overrides: Record<string, unknown> = {}): Promise<Outcome> {
  const body = { ...rec.body, ...overrides, model } as unknown as OpenAI.Responses.ResponseCreateParamsStreaming;
  const { data: stream, response } = await compat.openai.responses.create(body, { headers: rec.headers }).withResponse();
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
  const events: OpenAI.Responses.ResponseStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  expectResponsesEventOrder(events);
  const completed = events.at(-1) as OpenAI.Responses.ResponseCompletedEvent;
  expect(completed.response.status).toBe("completed");
  return { events, response: completed.response, headers: response.headers };
}

function expectUsage(response: OpenAI.Responses.Response): void {
  const usage = reported(compat.lastUpstream());
  expect(response.usage).toMatchObject({ input_tokens: usage.input, output_tokens: usage.output, total_tokens: usage.input + usage.output });
}

/** The simulator's seed: the text of the last user message it received (Responses input items or Messages). */
function seedOfUpstream(): string {
  const body = compat.lastUpstream().body as { input?: unknown[]; messages?: unknown[] };
  const items = (body.input ?? body.messages ?? []) as { role?: string; type?: string; content?: unknown }[];
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

function expectPassThroughOrTranslated(rec: Recording, shape: "openai" | "anthropic", headers: Headers): void {
  const upstream = compat.lastUpstream();
  if (shape === "openai") {
    // Same shape: the body goes untouched (custom tool, grammar, include, reasoning, ...), only the model renamed.
    expect(upstream.path).toBe("/v1/responses");
    expect(upstream.body).toEqual({ ...rec.body, model: upstream.model });
    expect(upstream.model).toMatch(/^gpt-upstream-[ab]$/);
    expect(headers.get("x-gateway-dropped-params")).toBeNull();
  } else {
    expect(upstream.path).toBe("/v1/messages");
    expect(upstream.model).toMatch(/^claude-upstream-[ab]$/);
    const sent = upstream.body as { system?: unknown; tools: { name: string; input_schema: unknown }[]; stream: boolean; tool_choice: unknown };
    expect(sent.stream).toBe(true);
    // tool_choice "auto" with parallel_tool_calls: false.
    expect(sent.tool_choice).toEqual({ type: "auto", disable_parallel_tool_use: true });
    expect(JSON.stringify(sent.system)).toContain("You are Codex, based on GPT-5.");
    // Every tool reaches the model, the freeform apply_patch included.
    expect(sent.tools.map((tool) => tool.name)).toEqual(["shell", "update_plan", "apply_patch", "view_image"]);
    expect(droppedParams(headers)).toContain("text.verbosity");
  }
}

describe.each(TARGETS)("Codex on $model ($shape-shape upstream)", ({ model, shape }) => {
  it("turn 1: the task, streamed: a shell function_call", async () => {
    const rec = recording("turn-1-function-call.json");
    const { response, headers, events } = await send(rec, model);
    const calls = response.output.filter((item): item is OpenAI.Responses.ResponseFunctionToolCall => item.type === "function_call");
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ type: "function_call", name: "shell", status: "completed" });
    expect(JSON.parse(calls[0]!.arguments)).toEqual({ command: [] });
    const argumentDeltas = events.filter((event) => event.type === "response.function_call_arguments.delta").map((event) => event.delta);
    expect(argumentDeltas.join("")).toBe(calls[0]!.arguments);
    expectUsage(response);
    expectPassThroughOrTranslated(rec, shape, headers);
  });

  it("turn 2: reasoning, shell and apply_patch calls with their outputs, streamed: the answer text", async () => {
    const rec = recording("turn-2-after-tool-outputs.json");
    const { response, headers, events } = await send(rec, model);
    const messages = response.output.filter((item): item is OpenAI.Responses.ResponseOutputMessage => item.type === "message");
    expect(messages).toHaveLength(1);
    const text = messages[0]!.content.map((part) => (part.type === "output_text" ? part.text : "")).join("");
    expect(text).toBe(expectedText(seedOfUpstream()));
    if (shape === "openai") expect(text).toBe(expectedText("fix the failing cart discount test"));
    const deltas = events.filter((event) => event.type === "response.output_text.delta").map((event) => event.delta);
    expect(deltas.join("")).toBe(text);
    expectUsage(response);
    expectPassThroughOrTranslated(rec, shape, headers);
    if (shape === "anthropic") {
      const sent = JSON.stringify(compat.lastUpstream().body);
      expect(sent).toContain("*** Begin Patch\\n*** Update File: src/cart/total.ts");
      expect(sent).toContain("Success. Updated the following files");
      expect(sent).toContain("call_H7kP2nV5xM9qT3wR6yL1bZ4d");
      expect(sent).toContain("call_Q3bX9mW2kL7pR4tN8vY1sZ6c");
    }
  });
});

describe("Codex's freeform tool on the Anthropic-shape model", () => {
  it("the model calls apply_patch: Codex gets a custom_tool_call with string input", async () => {
    const rec = recording("turn-1-function-call.json");
    const tools = rec.body.tools as { name: string }[];
    const applyPatchFirst = [...tools.filter((tool) => tool.name === "apply_patch"), ...tools.filter((tool) => tool.name !== "apply_patch")];
    const { response } = await send(rec, "claude-test", { tools: applyPatchFirst });
    const calls = response.output.filter((item) => item.type === "custom_tool_call");
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ type: "custom_tool_call", name: "apply_patch" });
    expect(typeof (calls[0] as OpenAI.Responses.ResponseCustomToolCall).input).toBe("string");
    expect(response.output.some((item) => item.type === "function_call")).toBe(false);
    expectUsage(response);
  });
});

describe("Codex on a server option with strict_params", () => {
  it("on the Anthropic-shape model, what would be dropped is refused: 400 unsupported_feature naming one of the dropped paths", async () => {
    const rec = recording("turn-1-function-call.json");
    const lenient = await send(rec, "claude-test");
    const wouldDrop = droppedParams(lenient.headers);
    expect(wouldDrop).toContain("text.verbosity");

    compat.resetUpstream();
    const { key } = await compat.stack.mintKey({ serverOption: "compat-strict" });
    const strict = new OpenAI({ baseURL: `${compat.url}/v1`, apiKey: key, maxRetries: 0 });
    const body = { ...rec.body, model: "claude-test" } as unknown as OpenAI.Responses.ResponseCreateParamsStreaming;
    const error = await strict.responses.create(body, { headers: rec.headers }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    const refused = error as InstanceType<typeof OpenAI.BadRequestError>;
    expect(refused).toMatchObject({ status: 400, type: "invalid_request_error", code: "unsupported_feature" });
    expect(wouldDrop).toContain(refused.param);
    expect(compat.upstream()).toHaveLength(0);
  });

  it("on the OpenAI-shape model, the same request passes untouched: 200", async () => {
    const { key } = await compat.stack.mintKey({ serverOption: "compat-strict" });
    const strict = new OpenAI({ baseURL: `${compat.url}/v1`, apiKey: key, maxRetries: 0 });
    const rec = recording("turn-1-function-call.json");
    const body = { ...rec.body, model: "gpt-test" } as unknown as OpenAI.Responses.ResponseCreateParamsStreaming;
    const { data: stream, response } = await strict.responses.create(body, { headers: rec.headers }).withResponse();
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    expectResponsesEventOrder(events);
    expect(response.headers.get("x-gateway-dropped-params")).toBeNull();
  });
});
