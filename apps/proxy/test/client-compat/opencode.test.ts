import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type Anthropic from "@anthropic-ai/sdk";
import { Stream as AnthropicStream } from "@anthropic-ai/sdk/core/streaming";
import { MessageStream } from "@anthropic-ai/sdk/lib/MessageStream";
import type OpenAI from "openai";
import { Stream as OpenAIStream } from "openai/core/streaming";
import { ChatCompletionStream } from "openai/lib/ChatCompletionStream";
import { CLAUDE_5, droppedParams, expectedText, expectMessagesEventOrder, expectResponsesEventOrder, parseSse, recording as loadRecording, replayHeaders, reported, startCompatStack, type CompatStack, type Recording } from "./compat-stack.ts";

/**
 * Recorded opencode 1.18.33 requests (fixtures/opencode-1.18.33, `pnpm clients:record`): its three
 * provider modes, each with the title request (no tools) and the turn (its tools) it sends at once
 * for `opencode run "say hi"` on claude-sonnet-5-5: `anthropic` (POST /v1/messages, `x-api-key`,
 * adaptive thinking with block_binding, cache_control, its betas), `openai` (POST /v1/responses,
 * `store: false`, `max_output_tokens`, prompt_cache_key) and `openai-compatible` (POST
 * /v1/chat/completions, `stream_options.include_usage`, cache_control on messages). Each is replayed
 * over raw HTTP with the real key to the Anthropic-shape model (by the recorded name, an alias of
 * the suite's Claude 5.5 model) and to the OpenAI-shape model, and read with the official SDK of
 * its shape: the Anthropic SDK's SSE parser and MessageStream, the openai SDK's SSE parser (and
 * ChatCompletionStream for chat).
 */
let compat: CompatStack;

beforeAll(async () => {
  compat = await startCompatStack({ compatFile: true });
});
afterAll(async () => compat?.close());
beforeEach(() => compat.resetUpstream());

const recording = (name: string) => loadRecording(`opencode-1.18.33/${name}`);

const TARGETS = [
  { name: "Anthropic-shape model by the recorded name", shape: "anthropic" as const, model: (recorded: string) => recorded },
  { name: "OpenAI-shape model", shape: "openai" as const, model: () => "gpt-test" },
];
type Target = (typeof TARGETS)[number];

/** What the client read: the answer's text, the tools it was asked to call, the usage it was told. */
interface Read {
  text: string;
  toolCalls: string[];
  usage: { input: number; output: number };
}

interface Replayed {
  status: number;
  headers: Headers;
  text: string;
}

async function replay(rec: Recording, model: string): Promise<Replayed> {
  const response = await fetch(`${compat.url}${rec.path}`, { method: rec.method, headers: replayHeaders(rec, compat.key), body: JSON.stringify({ ...rec.body, model }) });
  const text = await response.text();
  expect(response.status, text.slice(0, 500)).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
  return { status: response.status, headers: response.headers, text };
}

const asResponse = (answer: Replayed) => new Response(answer.text, { headers: answer.headers });

/** Messages: the SDK's SSE parser (throws on an error event), then its MessageStream accumulator. */
async function readMessages(answer: Replayed): Promise<Read> {
  expectMessagesEventOrder(parseSse(answer.text));
  const events: Anthropic.MessageStreamEvent[] = [];
  for await (const event of AnthropicStream.fromSSEResponse<Anthropic.MessageStreamEvent>(asResponse(answer), new AbortController())) events.push(event);
  const lines = events.map((event) => `${JSON.stringify(event)}\n`).join("");
  const message = await MessageStream.fromReadableStream(new Response(lines).body!).finalMessage();
  const input = message.usage.input_tokens + (message.usage.cache_read_input_tokens ?? 0) + (message.usage.cache_creation_input_tokens ?? 0);
  return {
    text: message.content.map((block) => (block.type === "text" ? block.text : "")).join(""),
    toolCalls: message.content.flatMap((block) => (block.type === "tool_use" ? [block.name] : [])),
    usage: { input, output: message.usage.output_tokens },
  };
}

/** Responses: the SDK's SSE parser; the completed response. */
async function readResponses(answer: Replayed): Promise<Read> {
  const events: OpenAI.Responses.ResponseStreamEvent[] = [];
  for await (const event of OpenAIStream.fromSSEResponse<OpenAI.Responses.ResponseStreamEvent>(asResponse(answer), new AbortController())) events.push(event);
  expectResponsesEventOrder(events);
  const response = (events.at(-1) as OpenAI.Responses.ResponseCompletedEvent).response;
  expect(response.status).toBe("completed");
  return {
    text: response.output.flatMap((item) => (item.type === "message" ? item.content : [])).map((part) => (part.type === "output_text" ? part.text : "")).join(""),
    toolCalls: response.output.flatMap((item) => (item.type === "function_call" ? [item.name] : [])),
    usage: { input: response.usage!.input_tokens, output: response.usage!.output_tokens },
  };
}

/** Chat completions: the SDK's SSE parser, then its ChatCompletionStream accumulator; usage from the include_usage chunk. */
async function readChat(answer: Replayed): Promise<Read> {
  const chunks: OpenAI.Chat.ChatCompletionChunk[] = [];
  for await (const chunk of OpenAIStream.fromSSEResponse<OpenAI.Chat.ChatCompletionChunk>(asResponse(answer), new AbortController())) chunks.push(chunk);
  const lines = chunks.map((chunk) => `${JSON.stringify(chunk)}\n`).join("");
  const completion = await ChatCompletionStream.fromReadableStream(new Response(lines).body!).finalChatCompletion();
  const usage = chunks.at(-1)!.usage;
  expect(usage, "the include_usage chunk comes last").toBeTruthy();
  const message = completion.choices[0]!.message;
  return {
    text: message.content ?? "",
    toolCalls: (message.tool_calls ?? []).flatMap((call) => (call.type === "function" ? [call.function.name] : [])),
    usage: { input: usage!.prompt_tokens, output: usage!.completion_tokens },
  };
}

interface Mode {
  kind: "anthropic" | "openai" | "openai-compatible";
  shape: "anthropic" | "openai";
  path: string;
  read(answer: Replayed): Promise<Read>;
}
const MODES: Mode[] = [
  { kind: "anthropic", shape: "anthropic", path: "/v1/messages", read: readMessages },
  { kind: "openai", shape: "openai", path: "/v1/responses", read: readResponses },
  { kind: "openai-compatible", shape: "openai", path: "/v1/chat/completions", read: readChat },
];

/** The simulator's seed: the text of the last user message the upstream received, its text parts joined by newlines. */
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
            .filter((part) => ["text", "input_text"].includes(part.type) && typeof part.text === "string")
            .map((part) => part.text!)
            .join("\n");
    if (text.length > 0) return text;
  }
  return "";
}

function toolNames(rec: Recording): string[] {
  return ((rec.body.tools ?? []) as { name?: string; function?: { name: string } }[]).map((tool) => tool.name ?? tool.function!.name);
}

function expectUpstream(rec: Recording, mode: Mode, target: Target, answer: Replayed): void {
  const upstream = compat.lastUpstream();
  const sameShape = mode.shape === target.shape;
  if (target.shape === "anthropic") {
    expect(upstream.path).toBe("/v1/messages");
    expect(upstream.model).toBe(CLAUDE_5.upstreamModel);
  } else {
    // Responses goes to Responses; chat and Messages to chat completions.
    expect(upstream.path).toBe(mode.kind === "openai" ? "/v1/responses" : "/v1/chat/completions");
    expect(upstream.model).toMatch(/^gpt-upstream-[ab]$/);
  }
  if (sameShape) {
    // Same shape: the client's body untouched, only the model renamed; its betas forwarded.
    expect(upstream.body).toEqual({ ...rec.body, model: upstream.model });
    if (mode.kind === "anthropic") expect(upstream.headers["anthropic-beta"]).toBe(rec.headers["anthropic-beta"]);
  }
  // Every tool reaches the model.
  const sent = upstream.body as { tools?: { name?: string; function?: { name: string } }[] };
  expect((sent.tools ?? []).map((tool) => tool.name ?? tool.function!.name)).toEqual(toolNames(rec));
  const dropped = droppedParams(answer.headers);
  expect(dropped.filter((path) => /^tools\[\d+\]$/.test(path))).toEqual([]);
  if (mode.kind === "anthropic" && target.shape === "openai") {
    expect(upstream.headers["anthropic-beta"]).toBeUndefined();
    expect(dropped).toContain("anthropic-beta");
    expect(dropped).toContain("system[0].cache_control");
    expect(JSON.stringify(upstream.body)).not.toContain("cache_control");
    expect(JSON.stringify(upstream.body)).not.toContain("block_binding");
  }
  // Responses or chat to Messages: only the prompt cache key has no Anthropic counterpart.
  if (mode.shape === "openai" && target.shape === "anthropic") expect(dropped).toEqual(rec.body.prompt_cache_key === undefined ? [] : ["prompt_cache_key"]);
}

describe.each(MODES)("opencode 1.18.33, provider mode $kind ($path)", (mode) => {
  describe.each(TARGETS)("on the $name", (target) => {
    it("the title request (no tools), streamed: 200, the title text, usage as reported", async () => {
      const rec = recording(`${mode.kind}-title.json`);
      expect(rec.path).toBe(mode.path);
      expect(rec.body.tools).toBeUndefined();
      const answer = await replay(rec, target.model(rec.body.model as string));
      const read = await mode.read(answer);
      expect(read.toolCalls).toEqual([]);
      expect(read.text).toBe(expectedText(seedOfUpstream()));
      expect(seedOfUpstream()).toContain('"say hi"');
      expect(read.usage).toEqual(reported(compat.lastUpstream()));
      expectUpstream(rec, mode, target, answer);
      if (mode.shape === target.shape) expect(answer.headers.get("x-gateway-dropped-params")).toBeNull();
    });

    it("the turn (its tools, tool_choice auto), streamed: 200, a call of one of its tools, usage as reported", async () => {
      const rec = recording(`${mode.kind}-turn.json`);
      expect(rec.path).toBe(mode.path);
      expect(toolNames(rec)).toEqual(["bash", "glob", "grep", "read", "skill", "task", "todowrite"]);
      const answer = await replay(rec, target.model(rec.body.model as string));
      const read = await mode.read(answer);
      // Without a directive the (lenient) simulator calls the first tool offered.
      expect(read.toolCalls).toEqual(["bash"]);
      expect(read.usage).toEqual(reported(compat.lastUpstream()));
      expectUpstream(rec, mode, target, answer);
      if (mode.shape === target.shape) expect(answer.headers.get("x-gateway-dropped-params")).toBeNull();
    });
  });
});

describe("opencode's requests are billed under the model they named", () => {
  it.each(MODES)("$kind: the turn on claude-sonnet-5-5 is billed to the suite's Claude 5.5 model", async (mode) => {
    const rec = recording(`${mode.kind}-turn.json`);
    const answer = await replay(rec, rec.body.model as string);
    await mode.read(answer);
    const events = await compat.stack.billingEvents(answer.headers.get("x-request-id")!);
    expect(events).toHaveLength(1);
    const usage = reported(compat.lastUpstream());
    expect(events[0]).toMatchObject({ model: CLAUDE_5.model, upstreamModel: CLAUDE_5.upstreamModel, usage: { inputTokens: usage.input, outputTokens: usage.output } });
  });
});
