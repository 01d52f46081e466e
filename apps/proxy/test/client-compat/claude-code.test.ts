import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type Anthropic from "@anthropic-ai/sdk";
import { Stream } from "@anthropic-ai/sdk/core/streaming";
import { BetaMessageStream } from "@anthropic-ai/sdk/lib/BetaMessageStream";
import { DEFAULT_DROP_BETAS } from "@gateway/config";
import { CLAUDE_5, droppedParams, expectedText, expectMessagesEventOrder, parseSse, recording as loadRecording, replayHeaders, reported, startCompatStack, type CompatStack, type Recording } from "./compat-stack.ts";

/**
 * Recorded Claude Code 2.1.332 requests (fixtures/claude-code-2.1.332, `pnpm clients:record`: method,
 * path, headers and body as the CLI sends them: `?beta=true`, its betas, the key as `x-api-key`,
 * system blocks with cache_control, a mid-conversation `{"role":"system"}` message, adaptive
 * thinking with `output_config.effort`, context_management, a deferred tool, its default model
 * names), replayed over raw HTTP with the real key where the CLI put it. Each goes to the
 * Anthropic-shape model (by the recorded name: Claude Code 2.1's are aliases of the suite's Claude 5.5
 * model `claude-5-test`, 2.0's dated ones of `claude-test`) and to the OpenAI-shape model (named
 * `gpt-test`, as `--model gpt-test` would).
 *
 * Kinds the 2.1 recordings do not hold replay Claude Code 2.0.14's (fixtures/claude-code/): 2.1 in
 * `-p` sends neither a title request nor count_tokens (title-haiku.json, count-tokens.json), and
 * against the simulator it gets no thinking block to send back signed (turn-2-after-tool-result.json).
 */
let compat: CompatStack;

beforeAll(async () => {
  compat = await startCompatStack({ compatFile: true });
});
afterAll(async () => compat?.close());
beforeEach(() => compat.resetUpstream());

const CURRENT = "claude-code-2.1.332";
const recording = (name: string) => loadRecording(`${CURRENT}/${name}`);
/** Claude Code 2.0.14's recordings of the kinds 2.1 no longer sends in `-p`. */
const older = (name: string) => loadRecording(`claude-code/${name}`);

type Target = { name: string; shape: "anthropic" | "openai"; model: (recorded: string) => string };
const TARGETS: Target[] = [
  { name: "Anthropic-shape model by the recorded name", shape: "anthropic", model: (recorded) => (recorded.startsWith("claude-") ? recorded : CLAUDE_5.model) },
  { name: "OpenAI-shape model", shape: "openai", model: () => "gpt-test" },
];

interface Replayed {
  status: number;
  headers: Headers;
  text: string;
}

async function replay(rec: Recording, model: string, key = compat.key): Promise<Replayed> {
  const headers = replayHeaders(rec, key);
  // Claude Code 2.0 sent the key as ANTHROPIC_AUTH_TOKEN (its recordings carry no credential header).
  if (!("x-api-key" in headers) && !("authorization" in headers)) headers.authorization = `Bearer ${key}`;
  const response = await fetch(`${compat.url}${rec.path}`, { method: rec.method, headers, body: JSON.stringify({ ...rec.body, model }) });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** The stream through the SDK's own SSE parser (throws on an error event), then its BetaMessageStream accumulator. */
async function parseWithSdk(answer: Replayed): Promise<{ events: Anthropic.Beta.BetaRawMessageStreamEvent[]; message: Anthropic.Beta.BetaMessage }> {
  const response = new Response(answer.text, { headers: answer.headers });
  const events: Anthropic.Beta.BetaRawMessageStreamEvent[] = [];
  for await (const event of Stream.fromSSEResponse<Anthropic.Beta.BetaRawMessageStreamEvent>(response, new AbortController())) events.push(event);
  const lines = events.map((event) => `${JSON.stringify(event)}\n`).join("");
  const message = await BetaMessageStream.fromReadableStream(new Response(lines).body!).finalMessage();
  return { events, message };
}

function expectStreamOk(answer: Replayed): void {
  expect(answer.status, answer.text.slice(0, 500)).toBe(200);
  expect(answer.headers.get("content-type")).toMatch(/^text\/event-stream/);
  expectMessagesEventOrder(parseSse(answer.text));
}

/** Usage as the client sees it equals what the simulator reported (input includes cache reads/writes). */
function expectUsage(message: Anthropic.Beta.BetaMessage): void {
  const usage = reported(compat.lastUpstream());
  const input = message.usage.input_tokens + (message.usage.cache_read_input_tokens ?? 0) + (message.usage.cache_creation_input_tokens ?? 0);
  expect(input).toBe(usage.input);
  expect(message.usage.output_tokens).toBe(usage.output);
}

/** What a same-shape upstream gets: the recorded betas minus the upstream's drop_betas. */
function forwardedBetas(rec: Recording): string {
  return rec.headers["anthropic-beta"]!.split(",").filter((beta) => !(DEFAULT_DROP_BETAS as readonly string[]).includes(beta)).join(",");
}

type Message = { role: string; content: unknown; tool_calls?: unknown[]; tool_call_id?: string };

function expectUpstreamCall(rec: Recording, target: Target): void {
  const upstream = compat.lastUpstream();
  if (target.shape === "anthropic") {
    expect(upstream.path).toBe("/v1/messages");
    expect(upstream.model).toBe(CLAUDE_5.upstreamModel);
    // Same shape to a model that takes all of it: every field untouched (the system message in its place,
    // thinking, effort, the deferred tool), only the model renamed.
    expect(upstream.body).toEqual({ ...rec.body, model: upstream.model });
    expect(upstream.headers["anthropic-beta"]).toBe(forwardedBetas(rec));
    expect(upstream.headers["anthropic-version"]).toBe(rec.headers["anthropic-version"]);
  } else {
    expect(upstream.path).toBe("/v1/chat/completions");
    expect(upstream.model).toMatch(/^gpt-upstream-[ab]$/);
    expect(upstream.headers["anthropic-beta"]).toBeUndefined();
    const sent = upstream.body as { messages: Message[]; tools?: { function: { name: string } }[]; reasoning_effort?: string };
    const text = JSON.stringify(sent);
    expect(text).not.toContain("cache_control");
    expect(text).not.toContain("context_management");
    expect(text).not.toContain("defer_loading");
    // Every tool reaches the model; the effort becomes reasoning_effort (gpt-test reasons).
    expect(sent.tools?.map((tool) => tool.function.name)).toEqual((rec.body.tools as { name: string }[]).map((tool) => tool.name));
    expect(sent.reasoning_effort).toBe((rec.body.output_config as { effort: string }).effort);
    // The mid-conversation system message stays a system message in its place (after the system prompt).
    const recordedRoles = (rec.body.messages as Message[]).map((message) => (message.role === "user" && isOnlyToolResults(message) ? "tool" : message.role));
    expect(sent.messages.map((message) => message.role)).toEqual(["system", ...recordedRoles]);
  }
}

function isOnlyToolResults(message: Message): boolean {
  return Array.isArray(message.content) && (message.content as { type: string }[]).every((block) => block.type === "tool_result");
}

/** Paths a cross-shape Claude Code request lists as dropped: its Anthropic-only parts, never a tool. */
function expectCrossShapeDrops(answer: Replayed, rec: Recording, cacheControlled: string[]): void {
  const dropped = droppedParams(answer.headers);
  expect(dropped).toEqual(expect.arrayContaining(["anthropic-beta", "context_management", "metadata.user_id", ...cacheControlled]));
  const deferred = (rec.body.tools as { defer_loading?: boolean }[]).flatMap((tool, index) => (tool.defer_loading ? [`tools[${index}].defer_loading`] : []));
  expect(deferred.length).toBeGreaterThan(0);
  expect(dropped).toEqual(expect.arrayContaining(deferred));
  expect(dropped.filter((path) => /^tools\[\d+\]$/.test(path) || path === "tools")).toEqual([]);
  // gpt-test writes up to 128,000 tokens and reasons: max_tokens and the effort carry over.
  expect(dropped).not.toContain("max_tokens");
  expect(dropped).not.toContain("output_config.effort");
}

/** The simulator seeds its words with the last user message's text blocks joined by newlines. */
function seedOf(message: { content: unknown }): string {
  if (typeof message.content === "string") return message.content;
  return (message.content as { type: string; text?: string }[]).filter((block) => block.type === "text").map((block) => block.text!).join("\n");
}

/** The recorded prompt: the first user message (a system reminder, then the prompt). */
const promptOf = (rec: Recording) => (rec.body.messages as Message[])[0]!;

describe.each(TARGETS)("Claude Code 2.1 on the $name", (target) => {
  it("turn 1 (default model claude-opus-5-5): system message mid-conversation, adaptive thinking, effort, tools, streamed: 200 with the Bash tool_use", async () => {
    const rec = recording("turn-1-tool-use.json");
    expect(rec.body.model).toBe("claude-opus-5-5");
    expect((rec.body.messages as Message[]).map((message) => message.role)).toEqual(["user", "system"]);
    const answer = await replay(rec, target.model(rec.body.model as string));
    expectStreamOk(answer);
    const { message } = await parseWithSdk(answer);
    expect(message.stop_reason).toBe("tool_use");
    const toolUse = message.content.find((block) => block.type === "tool_use");
    expect(toolUse).toMatchObject({ type: "tool_use", name: "Bash", input: { command: "echo hello", description: "Print a greeting" } });
    expectUsage(message);
    expectUpstreamCall(rec, target);
    if (target.shape === "anthropic") expect(answer.headers.get("x-gateway-dropped-params")).toBeNull();
    else expectCrossShapeDrops(answer, rec, ["system[1].cache_control", "system[2].cache_control", "messages[1].content[0].cache_control"]);
  });

  it("turn 2: the Bash tool_use and its tool_result, streamed: 200 with the answer text", async () => {
    const rec = recording("turn-2-after-tool-result.json");
    const answer = await replay(rec, target.model(rec.body.model as string));
    expectStreamOk(answer);
    const { message } = await parseWithSdk(answer);
    expect(message.stop_reason).toBe("end_turn");
    const text = message.content.filter((block) => block.type === "text").map((block) => block.text).join("");
    expect(text).toBe(expectedText(seedOf(promptOf(rec))));
    expectUsage(message);
    expectUpstreamCall(rec, target);
    if (target.shape === "anthropic") {
      expect(answer.headers.get("x-gateway-dropped-params")).toBeNull();
    } else {
      expectCrossShapeDrops(answer, rec, ["messages[3].content[0].cache_control"]);
      const sent = compat.lastUpstream().body as { messages: Message[] };
      const assistant = sent.messages.find((m) => m.role === "assistant")!;
      expect(assistant.tool_calls).toEqual([{ id: "toolu_u7g20t0l0000000003", type: "function", function: { name: "Bash", arguments: JSON.stringify({ command: "echo hello", description: "Print a greeting" }) } }]);
      expect(sent.messages.at(-1)).toMatchObject({ role: "tool", tool_call_id: "toolu_u7g20t0l0000000003", content: "hello" });
    }
  });

  it.each([
    ["sonnet.json", "claude-sonnet-5-5"],
    ["haiku.json", "claude-haiku-5-5"],
    ["gpt-4o-mini.json", "gpt-4o-mini"],
  ])("--model: %s (%s), streamed: 200, the SDK's message, usage as reported", async (file, recorded) => {
    const rec = recording(file);
    expect(rec.body.model).toBe(recorded);
    const answer = await replay(rec, target.model(recorded));
    expectStreamOk(answer);
    const { message } = await parseWithSdk(answer);
    expect(["tool_use", "end_turn"]).toContain(message.stop_reason);
    expect(message.content.length).toBeGreaterThan(0);
    if (message.stop_reason === "end_turn") expect(message.content.map((block) => (block.type === "text" ? block.text : "")).join("")).toBe(expectedText(seedOf(promptOf(rec))));
    expectUsage(message);
    expectUpstreamCall(rec, target);
    if (target.shape === "anthropic") expect(answer.headers.get("x-gateway-dropped-params")).toBeNull();
    else expectCrossShapeDrops(answer, rec, ["system[1].cache_control", "system[2].cache_control"]);
  });

  it("turn 1 without streaming: the same answer as one JSON message", async () => {
    const rec = recording("turn-1-tool-use.json");
    const answer = await replay({ ...rec, body: { ...rec.body, stream: false } }, target.model(rec.body.model as string));
    expect(answer.status, answer.text.slice(0, 500)).toBe(200);
    const message = JSON.parse(answer.text) as Anthropic.Beta.BetaMessage;
    expect(message).toMatchObject({ type: "message", role: "assistant", stop_reason: "tool_use" });
    expect(message.content.find((block) => block.type === "tool_use")).toMatchObject({ name: "Bash", input: { command: "echo hello" } });
    expectUsage(message);
  });

  it("Claude Code 2.0's turn 2 with an earlier signed thinking block (extended thinking), streamed: 200, the block byte-exact or dropped, never text", async () => {
    const rec = older("turn-2-after-tool-result.json");
    const answer = await replay(rec, target.model(rec.body.model as string));
    expectStreamOk(answer);
    const { message } = await parseWithSdk(answer);
    expect(message.stop_reason).toBe("end_turn");
    expect(message.content.map((block) => (block.type === "text" ? block.text : "")).join("")).toBe(expectedText(seedOf(promptOf(rec))));
    expectUsage(message);
    const upstream = compat.lastUpstream();
    if (target.shape === "anthropic") {
      expect(upstream.body).toEqual({ ...rec.body, model: upstream.model });
      expect(upstream.headers["anthropic-beta"]).toBe(forwardedBetas(rec));
      expect(answer.headers.get("x-gateway-dropped-params")).toBeNull();
    } else {
      const dropped = droppedParams(answer.headers);
      expect(dropped).toContain("context_management");
      // The signed thinking block of the earlier assistant turn (messages[1].content[0]) is dropped, never turned into text.
      expect(dropped.some((path) => path === "messages[1].content[0]" || path.startsWith("messages[1].content[0]."))).toBe(true);
      const sent = upstream.body as { messages: Message[] };
      expect(JSON.stringify(sent)).not.toContain("signature");
      expect(JSON.stringify(sent.messages)).not.toContain("The user wants to know why the cart tests fail");
      expect(sent.messages.find((m) => m.role === "assistant")?.tool_calls).toHaveLength(1);
      expect(sent.messages.at(-1)).toMatchObject({ role: "tool", tool_call_id: "toolu_01HvN8oQm3L7rX2tK9pW4sYc" });
    }
  });

  it("Claude Code 2.0's small-model title request (claude-3-5-haiku, temperature 0), streamed: 200 with the title text", async () => {
    const rec = older("title-haiku.json");
    const answer = await replay(rec, target.model(rec.body.model as string));
    expectStreamOk(answer);
    const { message } = await parseWithSdk(answer);
    expect(message.stop_reason).toBe("end_turn");
    expect(message.content).toEqual([{ type: "text", text: expectedText(seedOf(promptOf(rec))) }]);
    expectUsage(message);
    const upstream = compat.lastUpstream();
    if (target.shape === "anthropic") {
      expect(upstream.body).toEqual({ ...rec.body, model: upstream.model });
      expect(upstream.headers["anthropic-beta"]).toBe(forwardedBetas(rec));
      expect(answer.headers.get("x-gateway-dropped-params")).toBeNull();
    } else {
      expect(upstream.path).toBe("/v1/chat/completions");
      expect(droppedParams(answer.headers)).toContain("system[0].cache_control");
    }
  });

  it("Claude Code 2.0's count_tokens?beta=true (its MCP tools): {input_tokens}, not billed", async () => {
    const rec = older("count-tokens.json");
    const answer = await replay(rec, target.model(rec.body.model as string));
    expect(answer.status, answer.text.slice(0, 500)).toBe(200);
    const body = JSON.parse(answer.text) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(["input_tokens"]);
    expect(body.input_tokens).toBeGreaterThan(0);
    expect(await compat.stack.billingEvents(answer.headers.get("x-request-id")!)).toEqual([]);
    if (target.shape === "anthropic") {
      const upstream = compat.lastUpstream();
      expect(upstream.path).toBe("/v1/messages/count_tokens");
      expect(upstream.body).toEqual({ ...rec.body, model: upstream.model });
      expect(upstream.headers["anthropic-beta"]).toBe(forwardedBetas(rec));
    } else {
      expect(compat.upstream()).toHaveLength(0);
    }
  });
});

describe("Claude Code model names", () => {
  it.each([...CLAUDE_5.aliases])("%s, an alias, is billed and reported under the canonical name", async (name) => {
    const rec = recording("haiku.json");
    const answer = await replay({ ...rec, body: { ...rec.body, stream: false } }, name);
    expect(answer.status, answer.text.slice(0, 500)).toBe(200);
    const events = await compat.stack.billingEvents(answer.headers.get("x-request-id")!);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ model: CLAUDE_5.model, upstreamModel: CLAUDE_5.upstreamModel });
    const models = (await (await fetch(`${compat.url}/v1/models`, { headers: { authorization: `Bearer ${compat.key}` } })).json()) as { data: { id: string }[] };
    expect(models.data.map((model) => model.id)).toContain(CLAUDE_5.model);
    expect(models.data.map((model) => model.id)).not.toContain(name);
  });

  it("a name no alias matches is still 404 model_not_found", async () => {
    const rec = recording("haiku.json");
    const answer = await replay(rec, "claude-opus-4-1-20250805");
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.text)).toMatchObject({ type: "error", error: { type: "not_found_error", code: "model_not_found" } });
  });
});

describe("Claude Code 2.1 on a server option with strict_params", () => {
  it("cross-shape, what would be dropped is refused instead: 400 unsupported_feature naming one of the dropped paths", async () => {
    const rec = recording("turn-2-after-tool-result.json");
    const lenient = await replay(rec, "gpt-test");
    expect(lenient.status).toBe(200);
    const wouldDrop = droppedParams(lenient.headers);
    expect(wouldDrop.length).toBeGreaterThan(0);

    compat.resetUpstream();
    const { key } = await compat.stack.mintKey({ serverOption: "compat-strict" });
    const answer = await replay(rec, "gpt-test", key);
    expect(answer.status, answer.text.slice(0, 500)).toBe(400);
    const body = JSON.parse(answer.text) as { type: string; error: { type: string; code: string; param: string } };
    expect(body).toMatchObject({ type: "error", error: { type: "invalid_request_error", code: "unsupported_feature" } });
    expect(wouldDrop).toContain(body.error.param);
    expect(answer.headers.get("x-gateway-dropped-params")).toBeNull();
    expect(compat.upstream()).toHaveLength(0);
  });

  it("same-shape, nothing is dropped so nothing is refused: 200", async () => {
    const { key } = await compat.stack.mintKey({ serverOption: "compat-strict" });
    const rec = recording("turn-2-after-tool-result.json");
    const answer = await replay(rec, rec.body.model as string, key);
    expectStreamOk(answer);
    expect(answer.headers.get("x-gateway-dropped-params")).toBeNull();
  });
});

describe("Claude Code's own call path: the SDK's beta.messages with betas", () => {
  it.each(TARGETS)("beta.messages.stream on the $name: ?beta=true, the betas header, the answer", async (target) => {
    const rec = recording("turn-2-after-tool-result.json");
    const { stream: _stream, ...params } = rec.body;
    const betas = rec.headers["anthropic-beta"]!.split(",");
    const stream = compat.anthropic.beta.messages.stream({ ...(params as unknown as Anthropic.Beta.MessageCreateParamsStreaming), model: target.model(rec.body.model as string), betas });
    const final = await stream.finalMessage();
    expect(final.stop_reason).toBe("end_turn");
    const text = final.content.filter((block) => block.type === "text").map((block) => block.text).join("");
    expect(text).toBe(expectedText(seedOf(promptOf(rec))));
    expectUsage(final);
    const upstream = compat.lastUpstream();
    if (target.shape === "anthropic") {
      expect(upstream.headers["anthropic-beta"]).toBe(forwardedBetas(rec));
      expect(upstream.body).toEqual({ ...rec.body, model: upstream.model });
    } else {
      expect(upstream.headers["anthropic-beta"]).toBeUndefined();
      expect(upstream.path).toBe("/v1/chat/completions");
    }
  });
});
