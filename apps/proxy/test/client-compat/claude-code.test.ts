import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type Anthropic from "@anthropic-ai/sdk";
import { Stream } from "@anthropic-ai/sdk/core/streaming";
import { BetaMessageStream } from "@anthropic-ai/sdk/lib/BetaMessageStream";
import { DEFAULT_DROP_BETAS } from "@gateway/config";
import { droppedParams, expectedText, expectMessagesEventOrder, fixture, parseSse, reported, startCompatStack, type CompatStack } from "./compat-stack.ts";

/**
 * Recorded Claude Code requests (fixtures/claude-code: method, path, headers and body as the CLI
 * sends them: `?beta=true`, its betas including the OAuth one, system blocks with cache_control,
 * extended thinking with earlier signed thinking blocks, context_management, dated model names),
 * replayed over raw HTTP with the key as `ANTHROPIC_AUTH_TOKEN` would send it. Each goes to the
 * Anthropic-shape model (through the dated-name alias patterns) and to the OpenAI-shape model
 * (named `gpt-test`, as `ANTHROPIC_MODEL=gpt-test` would).
 */
let compat: CompatStack;

beforeAll(async () => {
  compat = await startCompatStack({ compatFile: true });
});
afterAll(async () => compat?.close());
beforeEach(() => compat.resetUpstream());

interface Recording {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}
const recording = (name: string) => fixture(`claude-code/${name}`) as unknown as Recording;

type Target = { name: string; shape: "anthropic" | "openai"; model: (recorded: string) => string };
const TARGETS: Target[] = [
  { name: "Anthropic-shape model by its dated alias", shape: "anthropic", model: (recorded) => recorded },
  { name: "OpenAI-shape model", shape: "openai", model: () => "gpt-test" },
];

interface Replayed {
  status: number;
  headers: Headers;
  text: string;
}

async function replay(rec: Recording, model: string, key = compat.key): Promise<Replayed> {
  const response = await fetch(`${compat.url}${rec.path}`, {
    method: rec.method,
    headers: { ...rec.headers, authorization: `Bearer ${key}` },
    body: JSON.stringify({ ...rec.body, model }),
  });
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

/** What a same-shape upstream gets: the recorded betas minus the upstream's drop_betas (the OAuth one). */
function forwardedBetas(rec: Recording): string {
  return rec.headers["anthropic-beta"]!.split(",").filter((beta) => !(DEFAULT_DROP_BETAS as readonly string[]).includes(beta)).join(",");
}

function expectUpstreamCall(rec: Recording, target: Target): void {
  const upstream = compat.lastUpstream();
  if (target.shape === "anthropic") {
    expect(upstream.path).toBe("/v1/messages");
    expect(upstream.model).toMatch(/^claude-upstream-[ab]$/);
    // Same shape: every field untouched (thinking blocks and their signatures byte-exact), only the model renamed.
    expect(upstream.body).toEqual({ ...rec.body, model: upstream.model });
    expect(upstream.headers["anthropic-beta"]).toBe(forwardedBetas(rec));
    expect(upstream.headers["anthropic-version"]).toBe(rec.headers["anthropic-version"]);
  } else {
    expect(upstream.path).toBe("/v1/chat/completions");
    expect(upstream.model).toMatch(/^gpt-upstream-[ab]$/);
    expect(upstream.headers["anthropic-beta"]).toBeUndefined();
    const sent = JSON.stringify(upstream.body);
    expect(sent).not.toContain("cache_control");
    expect(sent).not.toContain("context_management");
    expect(sent).not.toContain("signature");
  }
}

/** The simulator seeds its words with the last user message's text blocks joined by newlines. */
function seedOf(message: { content: unknown }): string {
  if (typeof message.content === "string") return message.content;
  return (message.content as { type: string; text?: string }[]).filter((block) => block.type === "text").map((block) => block.text!).join("\n");
}

describe.each(TARGETS)("Claude Code on the $name", (target) => {
  it("turn 1: thinking + tools + context_management, streamed: 200 with a Bash tool_use", async () => {
    const rec = recording("turn-1-tool-use.json");
    const answer = await replay(rec, target.model(rec.body.model as string));
    expectStreamOk(answer);
    const { message } = await parseWithSdk(answer);
    expect(message.stop_reason).toBe("tool_use");
    const toolUse = message.content.find((block) => block.type === "tool_use");
    expect(toolUse).toMatchObject({ type: "tool_use", name: "Bash", input: { command: "test" } });
    expectUsage(message);
    expectUpstreamCall(rec, target);
    const dropped = droppedParams(answer.headers);
    if (target.shape === "anthropic") {
      expect(answer.headers.get("x-gateway-dropped-params")).toBeNull();
    } else {
      expect(dropped).toContain("context_management");
      expect(dropped).toEqual(expect.arrayContaining(["system[0].cache_control", "system[1].cache_control", "messages[0].content[1].cache_control"]));
      expect(dropped.every((path) => !path.startsWith("tools"))).toBe(true);
    }
  });

  it("turn 2: earlier signed thinking block + tool_result, streamed: 200 with the answer text", async () => {
    const rec = recording("turn-2-after-tool-result.json");
    const answer = await replay(rec, target.model(rec.body.model as string));
    expectStreamOk(answer);
    const { message } = await parseWithSdk(answer);
    expect(message.stop_reason).toBe("end_turn");
    const messages = rec.body.messages as { content: unknown }[];
    const text = message.content.filter((block) => block.type === "text").map((block) => block.text).join("");
    expect(text).toBe(expectedText(seedOf(messages[0]!)));
    expectUsage(message);
    expectUpstreamCall(rec, target);
    if (target.shape === "anthropic") {
      expect(answer.headers.get("x-gateway-dropped-params")).toBeNull();
    } else {
      const dropped = droppedParams(answer.headers);
      expect(dropped).toContain("context_management");
      // The signed thinking block of the earlier assistant turn (messages[1].content[0]) is dropped, never turned into text.
      expect(dropped.some((path) => path === "messages[1].content[0]" || path.startsWith("messages[1].content[0]."))).toBe(true);
      expect(dropped).toContain("messages[2].content[0].cache_control");
      const sent = compat.lastUpstream().body as { messages: { role: string; content: unknown; tool_calls?: unknown[] }[] };
      expect(JSON.stringify(sent.messages)).not.toContain("The user wants to know why the cart tests fail");
      expect(sent.messages.find((m) => m.role === "assistant")?.tool_calls).toHaveLength(1);
      expect(sent.messages.at(-1)).toMatchObject({ role: "tool", tool_call_id: "toolu_01HvN8oQm3L7rX2tK9pW4sYc" });
    }
  });

  it("the small-model title request (claude-3-5-haiku, temperature 0), streamed: 200 with the title text", async () => {
    const rec = recording("title-haiku.json");
    const answer = await replay(rec, target.model(rec.body.model as string));
    expectStreamOk(answer);
    const { message } = await parseWithSdk(answer);
    expect(message.stop_reason).toBe("end_turn");
    expect(message.content).toEqual([{ type: "text", text: expectedText(seedOf((rec.body.messages as { content: unknown }[])[0]!)) }]);
    expectUsage(message);
    expectUpstreamCall(rec, target);
    if (target.shape === "anthropic") expect(answer.headers.get("x-gateway-dropped-params")).toBeNull();
    else expect(droppedParams(answer.headers)).toContain("system[0].cache_control");
  });

  it("turn 1 without streaming: the same answer as one JSON message", async () => {
    const rec = recording("turn-1-tool-use.json");
    const answer = await replay({ ...rec, body: { ...rec.body, stream: false } }, target.model(rec.body.model as string));
    expect(answer.status, answer.text.slice(0, 500)).toBe(200);
    const message = JSON.parse(answer.text) as Anthropic.Beta.BetaMessage;
    expect(message).toMatchObject({ type: "message", role: "assistant", stop_reason: "tool_use" });
    expect(message.content.find((block) => block.type === "tool_use")).toMatchObject({ name: "Bash", input: { command: "test" } });
    expectUsage(message);
  });

  it("count_tokens?beta=true, as Claude Code counts its MCP tools: {input_tokens}, not billed", async () => {
    const rec = recording("count-tokens.json");
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
  it("a dated name matching an alias pattern is billed and reported under the canonical name", async () => {
    const rec = recording("title-haiku.json");
    const answer = await replay({ ...rec, body: { ...rec.body, stream: false } }, "claude-3-5-haiku-20241022");
    expect(answer.status, answer.text).toBe(200);
    const events = await compat.stack.billingEvents(answer.headers.get("x-request-id")!);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ model: "claude-test", upstreamModel: expect.stringMatching(/^claude-upstream-[ab]$/) });
    const models = (await (await fetch(`${compat.url}/v1/models`, { headers: { authorization: `Bearer ${compat.key}` } })).json()) as { data: { id: string }[] };
    expect(models.data.map((model) => model.id)).toContain("claude-test");
    expect(models.data.map((model) => model.id).some((id) => id.startsWith("claude-3-5-haiku"))).toBe(false);
  });

  it("a dated name no pattern matches is still 404 model_not_found", async () => {
    const rec = recording("title-haiku.json");
    const answer = await replay(rec, "claude-opus-4-1-20250805");
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.text)).toMatchObject({ type: "error", error: { type: "not_found_error", code: "model_not_found" } });
  });
});

describe("Claude Code on a server option with strict_params", () => {
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
    expect(text).toBe(expectedText(seedOf((rec.body.messages as { content: unknown }[])[0]!)));
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
