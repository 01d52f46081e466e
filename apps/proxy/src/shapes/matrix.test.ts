import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { GatewayError } from "@gateway/contracts";
import { MessageStream } from "@anthropic-ai/sdk/lib/MessageStream";
import { ChatCompletionStream } from "openai/lib/ChatCompletionStream";
import { ResponseStream } from "openai/lib/responses/ResponseStream";
import { DroppedParams } from "../core/drops.ts";
import type { ParsedRequest } from "../core/wire-format.ts";
import { fixtureEvents, fixtureJson, payloads, runStream, sdkReadable } from "./__fixtures__/fixtures.ts";
import { SHAPE_LIST, translationBetween, type ShapeId } from "./index.ts";

/*
 * Every client shape x every upstream shape of SHAPE_LIST x every recorded fixture (neutral-core.md
 * section 5, step 8): a client's request becomes the upstream's body or the documented 400 naming a
 * field; every upstream answer and stream becomes a well-formed body of the client's shape (read back
 * by the client's own SDK where one exists); and the client is told the token totals the upstream
 * reported, as billing reads them from the upstream's own wire format.
 */

/** The shapes with a client side and those with an upstream side: a pair missing from SHAPE_LIST fails here. */
const CLIENTS = ["chat", "messages", "responses", "gemini"] as const;
const UPSTREAMS = ["chat", "messages", "gemini", "converse"] as const;
type Client = (typeof CLIENTS)[number];
type Upstream = (typeof UPSTREAMS)[number];

const fixtures = new URL("./__fixtures__/", import.meta.url);
const goldenInputs = new URL("./__goldens__/inputs/", import.meta.url);

const jsonFiles = (folder: URL) =>
  readdirSync(folder)
    .filter((name) => name.endsWith(".json"))
    .sort();

/** The client requests of each shape: recorded ones (Codex, Gemini CLI) and the goldens' inputs (drops and refusals among them). */
const REQUESTS: Record<Client, [string, Record<string, unknown>][]> = {
  chat: jsonFiles(new URL("chat/", goldenInputs)).map((name) => [`inputs/chat/${name}`, fixtureJson(`../__goldens__/inputs/chat/${name}`)]),
  messages: jsonFiles(new URL("messages/", goldenInputs)).map((name) => [`inputs/messages/${name}`, fixtureJson(`../__goldens__/inputs/messages/${name}`)]),
  responses: [
    ["codex/request.json", fixtureJson("codex/request.json")],
    ...jsonFiles(new URL("responses/", goldenInputs)).map((name): [string, Record<string, unknown>] => [`inputs/responses/${name}`, fixtureJson(`../__goldens__/inputs/responses/${name}`)]),
  ],
  gemini: jsonFiles(new URL("gemini-cli/", fixtures)).map((name) => [`gemini-cli/${name}`, fixtureJson(`gemini-cli/${name}`)]),
};

/** The client request an upstream's answer is translated for: chat asks for its usage chunk, Gemini for its thoughts. */
const ASKING: Record<Client, Record<string, unknown>> = {
  chat: { model: "gpt-x", messages: [{ role: "user", content: "Hi" }], stream_options: { include_usage: true } },
  messages: { model: "claude-x", max_tokens: 100, messages: [{ role: "user", content: "Hi" }] },
  responses: { model: "gpt-x", input: "Hi" },
  gemini: { contents: [{ role: "user", parts: [{ text: "Hi" }] }], generationConfig: { thinkingConfig: { includeThoughts: true } } },
};

/** Where each upstream shape's recorded answers are. */
const ANSWERS: Record<Upstream, string> = { chat: "openai-chat", messages: "anthropic-messages", gemini: "gemini", converse: "bedrock-converse" };

function answers(upstream: Upstream, suffix: ".json" | ".chunks.txt"): string[] {
  return readdirSync(new URL(`${ANSWERS[upstream]}/`, fixtures))
    .filter((name) => name.endsWith(suffix))
    .sort()
    .map((name) => `${ANSWERS[upstream]}/${name}`);
}

/** The request as the route hands it on (a Gemini client names its model in the URL). */
function parsed(body: Record<string, unknown>): ParsedRequest {
  return { body: structuredClone(body), model: typeof body.model === "string" ? body.model : "gemini-x", stream: body.stream === true, outputBound: 1024 };
}

type Totals = { input: number; output: number };
type Json = Record<string, unknown>;
const num = (value: unknown): number => (typeof value === "number" ? value : 0);

/** A whole answer of the client's shape, checked for its shape's required parts; its token totals. */
function wholeTotals(client: Client, body: Json): Totals {
  switch (client) {
    case "chat": {
      const choices = body.choices as Json[];
      expect(body.object).toBe("chat.completion");
      expect(choices[0]?.message).toEqual(expect.objectContaining({ role: "assistant" }));
      const usage = body.usage as Json;
      return { input: num(usage.prompt_tokens), output: num(usage.completion_tokens) };
    }
    case "messages":
      expect(body.type).toBe("message");
      expect(Array.isArray(body.content)).toBe(true);
      return messagesTotals(body.usage as Json);
    case "responses":
      expect(body.object).toBe("response");
      expect(Array.isArray(body.output)).toBe(true);
      return responsesTotals(body.usage as Json);
    case "gemini":
      expect(Array.isArray(body.candidates)).toBe(true);
      return geminiTotals(body.usageMetadata as Json);
    default: {
      const never: never = client;
      return never;
    }
  }
}

/** Anthropic's input_tokens leaves out the cache's reads and writes: the input is the three together. */
const messagesTotals = (usage: Json): Totals => ({
  input: num(usage.input_tokens) + num(usage.cache_read_input_tokens) + num(usage.cache_creation_input_tokens),
  output: num(usage.output_tokens),
});
const responsesTotals = (usage: Json): Totals => ({ input: num(usage.input_tokens), output: num(usage.output_tokens) });
/** Gemini's candidatesTokenCount leaves out the thoughts: the output is both. */
const geminiTotals = (usage: Json): Totals => ({ input: num(usage.promptTokenCount), output: num(usage.candidatesTokenCount) + num(usage.thoughtsTokenCount) });

/** A client stream, assembled by the client's SDK where one exists and checked for its shape's last event; its token totals. */
async function streamTotals(client: Client, text: string): Promise<Totals> {
  const events = payloads(text);
  expect(events.length).toBeGreaterThan(0);
  switch (client) {
    case "chat": {
      for (const event of events) expect(event.object).toBe("chat.completion.chunk");
      const final = await ChatCompletionStream.fromReadableStream(sdkReadable(text)).finalChatCompletion();
      expect(final.choices[0]?.message.role).toBe("assistant");
      expect(final.choices[0]?.finish_reason).toEqual(expect.any(String));
      const usage = events.at(-1)!.usage as Json;
      return { input: num(usage.prompt_tokens), output: num(usage.completion_tokens) };
    }
    case "messages": {
      const final = await MessageStream.fromReadableStream(sdkReadable(text)).finalMessage();
      expect(Array.isArray(final.content)).toBe(true);
      expect(events.at(-1)!.type).toBe("message_stop");
      // The input is told in message_start, the output in message_delta (Anthropic's own split).
      const start = (events.find((event) => event.type === "message_start")!.message as Json).usage as Json;
      const delta = events.filter((event) => event.type === "message_delta").at(-1)!.usage as Json;
      return { input: messagesTotals({ ...start, ...pickInput(delta) }).input, output: num(delta.output_tokens) };
    }
    case "responses": {
      const final = await ResponseStream.fromReadableStream(sdkReadable(text)).finalResponse();
      expect(Array.isArray(final.output)).toBe(true);
      return responsesTotals(final.usage as unknown as Json);
    }
    case "gemini": {
      for (const event of events) expect(Array.isArray(event.candidates) || event.promptFeedback !== undefined).toBe(true);
      const last = events.at(-1)!;
      // Gemini CLI retries a stream whose last chunk has no finishReason.
      expect((last.candidates as Json[])[0]?.finishReason).toEqual(expect.any(String));
      return geminiTotals(last.usageMetadata as Json);
    }
    default: {
      const never: never = client;
      return never;
    }
  }
}

/** A message_delta's input counts, when it carries them (they then replace message_start's). */
function pickInput(usage: Json): Json {
  const input: Json = {};
  for (const key of ["input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"]) if (typeof usage[key] === "number") input[key] = usage[key];
  return input;
}

describe("the matrix covers SHAPE_LIST", () => {
  it("every shape with a client side is a client here, every shape with an upstream side an upstream", () => {
    expect(SHAPE_LIST.filter((shape) => shape.client).map((shape) => shape.id).sort()).toEqual([...CLIENTS].sort());
    expect(SHAPE_LIST.filter((shape) => shape.upstream).map((shape) => shape.id).sort()).toEqual([...UPSTREAMS].sort());
  });

  it.each(UPSTREAMS)("the %s upstream has recorded answers, whole and streamed", (upstream) => {
    expect(answers(upstream, ".json").length).toBeGreaterThan(0);
    expect(answers(upstream, ".chunks.txt").length).toBeGreaterThan(0);
  });
});

const PAIRS = CLIENTS.flatMap((client) => UPSTREAMS.filter((upstream) => upstream !== (client as ShapeId)).map((upstream) => ({ client, upstream })));

describe.each(PAIRS)("$client client, $upstream upstream", ({ client, upstream }) => {
  it.each(REQUESTS[client])("request %s: the upstream's body, or a 400 naming the field", (_name, body) => {
    const translation = translationBetween(client, upstream);
    const dropped = new DroppedParams(false);
    let result: ParsedRequest | null = null;
    try {
      result = translation.request(parsed(body), dropped);
    } catch (error) {
      expect(error).toBeInstanceOf(GatewayError);
      expect(error).toMatchObject({ status: 400, param: expect.any(String) });
      // The 400 names a field of the client's own body (its path, in the client's words).
      expect(Object.keys(body)).toContain((error as GatewayError).param!.split(/[.[]/)[0]);
    }
    if (result) {
      expect(JSON.parse(JSON.stringify(result.body))).toEqual(result.body);
      expect(result.outputBound).toBe(1024);
    }
  });

  it.each(answers(upstream, ".json"))("answer %s: a whole answer of the client's shape, the upstream's token totals", (name) => {
    const translation = translationBetween(client, upstream);
    const answer = fixtureJson(name);
    const reported = translation.upstreamWire.usageFromResponse(answer);
    expect(reported).not.toBeNull();
    const body = translation.response(answer, parsed(ASKING[client]));
    expect(wholeTotals(client, body)).toEqual({ input: reported!.inputTokens, output: reported!.outputTokens });
  });

  it.each(answers(upstream, ".chunks.txt"))("stream %s: a stream of the client's shape, the upstream's token totals", async (name) => {
    const translation = translationBetween(client, upstream);
    const events = fixtureEvents(name);
    const tracker = translation.upstreamWire.createStreamTracker({ body: { model: "m", stream: true, stream_options: { include_usage: true } }, model: "m", stream: true });
    for (const event of events) tracker.observe(event);
    const reported = tracker.usage();
    expect(reported).not.toBeNull();
    const { text } = runStream(translation.stream(parsed({ ...ASKING[client], stream: true })), events);
    expect(await streamTotals(client, text)).toEqual({ input: reported!.inputTokens, output: reported!.outputTokens });
  });
});
