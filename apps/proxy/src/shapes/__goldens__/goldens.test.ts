import { readdirSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { EndpointName } from "@gateway/contracts";
import { outputBound } from "../../core/output-bound.ts";
import { fixtureEvents, fixtureJson } from "../__fixtures__/fixtures.ts";
import type { Translation } from "../../core/pipeline.ts";
import { translationBetween } from "../index.ts";
import { golden, goldenFiles, removeGoldens, UPDATING } from "./golden-files.ts";
import { normaliseIds, renderRequest, renderResponse, renderStream } from "./render.ts";

/*
 * Goldens of today's translation, so the move to one neutral core (a reader and a writer per shape)
 * is proven step by step: every recorded fixture through every direction it applies to, the output compared byte for byte (ids the gateway invents and the clock
 * normalised) with the committed file under <direction>/request|response|stream/. A change that
 * alters any output fails here; one that means to is recorded with
 *   UPDATE_GOLDENS=1 npx vitest run src/shapes/__goldens__
 * and the diff of the golden files is the review.
 */

type ClientShape = "chat" | "messages" | "responses";

const ENDPOINT: Record<ClientShape, EndpointName> = { chat: "chat.completions", messages: "messages", responses: "responses" };

/** The model maximum the client requests are bounded by (the route's output bound, contract section 14). */
const MODEL_MAX_OUTPUT = 16_384;

interface Direction {
  translation: Translation;
  client: ClientShape;
  upstream: "openai-chat" | "anthropic-messages";
  /**
   * The client requests the upstream's answers are translated for: the response mappers read the
   * request (a Responses object echoes its settings; custom tools; chat usage chunks only when asked).
   */
  clients: Record<string, Record<string, unknown>>;
}

const codex = fixtureJson("codex/request.json");
const messagesToChat = translationBetween("messages", "chat");
const chatToMessages = translationBetween("chat", "messages");
const responsesToChat = translationBetween("responses", "chat");
const responsesToMessages = translationBetween("responses", "messages");

const DIRECTIONS: readonly Direction[] = [
  { translation: messagesToChat, client: "messages", upstream: "openai-chat", clients: { plain: { model: "claude-x", max_tokens: 100, messages: [] } } },
  {
    translation: chatToMessages,
    client: "chat",
    upstream: "anthropic-messages",
    clients: { usage: { model: "gpt-x", messages: [], stream_options: { include_usage: true } }, plain: { model: "gpt-x", messages: [] } },
  },
  { translation: responsesToChat, client: "responses", upstream: "openai-chat", clients: { plain: { model: "gpt-x", input: "Hi", tools: [{ type: "custom", name: "apply_patch" }] }, codex } },
  { translation: responsesToMessages, client: "responses", upstream: "anthropic-messages", clients: { plain: { model: "gpt-x", input: "Hi" }, codex } },
];

/**
 * Client requests: the recorded ones (`__fixtures__/codex/request.json`, Codex's), and inputs/<shape>/
 * (the common cases of each client shape, drops and refusals among them).
 */
const RECORDED_REQUESTS: Record<ClientShape, Record<string, string>> = { chat: {}, messages: {}, responses: { codex: "codex/request.json" } };

function requestInputs(shape: ClientShape): [string, Record<string, unknown>][] {
  const folder = new URL(`./inputs/${shape}/`, import.meta.url);
  const inputs = readdirSync(folder)
    .filter((name) => name.endsWith(".json"))
    .sort()
    .map((name): [string, Record<string, unknown>] => [name.slice(0, -".json".length), JSON.parse(readFileSync(new URL(name, folder), "utf8"))]);
  return [...Object.entries(RECORDED_REQUESTS[shape]).map(([name, fixture]): [string, Record<string, unknown>] => [name, fixtureJson(fixture)]), ...inputs];
}

/** The recorded upstream answers of a shape, by base name: `.json` bodies and `.chunks.txt` streams. */
function fixtures(upstream: Direction["upstream"], suffix: ".json" | ".chunks.txt"): string[] {
  return readdirSync(new URL(`../__fixtures__/${upstream}/`, import.meta.url))
    .filter((name) => name.endsWith(suffix))
    .sort()
    .map((name) => name.slice(0, -suffix.length));
}

/** The client's request as the route hands it on: required fields read, the output bound computed. */
function parsed(shape: ClientShape, body: Record<string, unknown>) {
  const copy = structuredClone(body);
  return { body: copy, model: String(copy.model), stream: copy.stream === true, outputBound: outputBound(copy, ENDPOINT[shape], MODEL_MAX_OUTPUT, "lower") };
}

/** Every golden file a case writes (named while the cases are collected), to find the ones no case writes any more. */
const expectedFiles = new Set<string>();

/** A case's golden file, named once: noted as expected, then compared with the normalised output. */
function goldenCase(file: string): (rendered: string) => void {
  expectedFiles.add(file);
  return (rendered) => {
    const actual = normaliseIds(rendered);
    const expected = golden(file, actual);
    expect(expected, `${file}: no golden file; record it with UPDATE_GOLDENS=1`).not.toBeNull();
    expect(actual).toBe(expected);
  };
}

beforeAll(() => {
  // Clocks: the `created` / `created_at` the gateway writes.
  vi.useFakeTimers({ toFake: ["Date"], now: Date.UTC(2026, 0, 1) });
});
afterAll(() => {
  vi.useRealTimers();
});

describe.each(DIRECTIONS)("$translation.name", ({ translation, client, upstream, clients }) => {
  const folder = translation.name;
  /** Each recorded answer for each client request of the direction, with its golden file. */
  const answerCases = (suffix: ".json" | ".chunks.txt", kind: string, extension: string) =>
    fixtures(upstream, suffix).flatMap((name) => Object.keys(clients).map((as) => ({ name, as, check: goldenCase(`${folder}/${kind}/${name}.${as}${extension}`) })));

  describe.each(requestInputs(client))("request %s", (name, body) => {
    it.each([false, true].map((strict) => ({ strict, check: goldenCase(`${folder}/request/${name}${strict ? ".strict" : ""}.json`) })))("strict_params $strict", ({ strict, check }) => {
      check(renderRequest((dropped) => translation.request(parsed(client, body), dropped), strict));
    });
  });

  it.each(answerCases(".json", "response", ".json"))("response $name, for the $as client", ({ name, as, check }) => {
    const answer = fixtureJson(`${upstream}/${name}.json`);
    check(renderResponse(() => translation.response(answer, parsed(client, clients[as]!))));
  });

  it.each(answerCases(".chunks.txt", "stream", ".txt"))("stream $name, for the $as client", ({ name, as, check }) => {
    const events = fixtureEvents(`${upstream}/${name}.chunks.txt`);
    check(renderStream(translation.stream(parsed(client, { ...clients[as], stream: true })), events));
  });
});

describe("the golden files", () => {
  it("are each written by a case (UPDATE_GOLDENS=1 removes the others)", () => {
    const stale = goldenFiles(DIRECTIONS.map((direction) => direction.translation.name)).filter((name) => !expectedFiles.has(name));
    if (UPDATING) removeGoldens(stale);
    else expect(stale, "golden files no case writes: remove them, or run with UPDATE_GOLDENS=1").toEqual([]);
  });
});
