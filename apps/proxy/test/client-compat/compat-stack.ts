import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { parseGatewayFile } from "@gateway/config";
import { applyGatewayFile } from "@gateway/control-plane";
import { generateWords, type StatsRecord } from "@gateway/simulator";
import { startStack, testGatewayYaml, type Stack } from "../stack.ts";
import { sseEvents } from "../../src/shapes/__fixtures__/fixtures.ts";

/**
 * The client-compatibility suite (contract section 11): real clients, unmodified, against the real
 * stack. Two models of the test gateway file: `gpt-test` is served by OpenAI-shape upstreams,
 * `claude-test` by Anthropic-shape ones. Claude Code 2.0's dated model names reach `claude-test`
 * through the alias patterns added below; Claude Code 2.1's reach `CLAUDE_5`.
 */
export const MODELS = [
  { model: "gpt-test", shape: "openai" },
  { model: "claude-test", shape: "anthropic" },
] as const;
export type ModelCase = (typeof MODELS)[number];

/** Alias patterns this suite gives `claude-test` (Claude Code 2.0's default dated names). */
export const CLAUDE_ALIASES = ["claude-sonnet-4-5-*", "claude-3-5-haiku-*"];

/**
 * A Claude 5.5 model this suite adds for Claude Code 2.1 (its default `claude-opus-5-5`, `--model
 * sonnet` / `haiku`): it takes mid-conversation system messages, adaptive thinking with effort and
 * 128,000 output tokens, as Claude Code asks; its upstream id is one the simulator knows as such (it
 * refuses a system message in `messages` to a model that does not take one).
 */
export const CLAUDE_5 = { model: "claude-5-test", upstreamModel: "claude-opus-5-5", aliases: ["claude-opus-5-5", "claude-sonnet-5-5", "claude-haiku-5-5"] } as const;

export interface CompatStack {
  stack: Stack;
  url: string;
  key: string;
  openai: OpenAI;
  anthropic: Anthropic;
  /** Upstream requests the simulator saw since the last `resetUpstream()` (model listings left out). */
  upstream(): StatsRecord[];
  lastUpstream(): StatsRecord;
  resetUpstream(): void;
  close(): Promise<void>;
}

/**
 * The test gateway file with `aliases` on `claude-test` (unless the shared file already has them),
 * and a server option `compat-strict` (both models, `strict_params: true`) for the refuse-instead-of-drop cases.
 */
export function compatGatewayYaml(simulatorUrl: string): string {
  let yaml = testGatewayYaml(simulatorUrl);
  if (!yaml.includes("claude-sonnet-4-5-")) {
    const aliases = CLAUDE_ALIASES.map((alias) => JSON.stringify(alias)).join(", ");
    yaml = replaceOnce(yaml, "  - name: claude-test\n", `  - name: claude-test\n    aliases: [${aliases}]\n`);
  }
  // The recorded clients' models (contract section 15 capabilities): Codex's and opencode's default
  // models reason and write up to 128,000 tokens (gpt-6.2-sol), so gpt-test takes reasoning and that
  // bound here (same shape, a bound below what the client asks is a 400).
  yaml = replaceOnce(yaml, "    capabilities: { max_output_tokens: 16384 }\n    targets: [ { upstream: sim-openai-a, model: gpt-upstream-a }", "    capabilities: { max_output_tokens: 128000, reasoning: true }\n    targets: [ { upstream: sim-openai-a, model: gpt-upstream-a }");
  const aliases5 = CLAUDE_5.aliases.map((alias) => JSON.stringify(alias)).join(", ");
  yaml = replaceOnce(
    yaml,
    "  - name: gpt-same-name\n",
    `  - name: ${CLAUDE_5.model}\n    aliases: [${aliases5}]\n    prices: { input: "5.00", output: "25.00", cached_input: "0.50" }\n    capabilities: { max_output_tokens: 128000, reasoning: true, sampling: false, mid_conversation_system: true }\n    targets: [ { upstream: sim-anthropic-a, model: ${CLAUDE_5.upstreamModel} }, { upstream: sim-anthropic-b, model: ${CLAUDE_5.upstreamModel}, priority: 1 } ]\n  - name: gpt-same-name\n`,
  );
  yaml = replaceOnce(yaml, "{ name: standard, models: [gpt-test, claude-test, ", `{ name: standard, models: [gpt-test, claude-test, ${CLAUDE_5.model}, `);
  // A request in flight counts at its output bound (128,000): the demo's 1M tokens a minute.
  yaml = replaceOnce(yaml, "rate_limits: { rpm: 600, tpm: 200000 }", "rate_limits: { rpm: 600, tpm: 1000000 }");
  yaml = replaceOnce(yaml, "server_options:\n", `server_options:\n  - { name: compat-strict, models: [gpt-test, claude-test, ${CLAUDE_5.model}], strict_params: true }\n`);
  return replaceOnce(yaml, "server_options: [standard, premium]", "server_options: [standard, premium, compat-strict]");
}

function replaceOnce(text: string, search: string, replacement: string): string {
  expect(text.split(search), `the test gateway file no longer has ${JSON.stringify(search)} once`).toHaveLength(2);
  return text.replace(search, replacement);
}

/** `compatFile: true` re-applies `compatGatewayYaml` (aliases and the strict server option) before the key is minted. */
export async function startCompatStack(options: { compatFile?: boolean } = {}): Promise<CompatStack> {
  const stack = await startStack();
  if (options.compatFile) {
    await applyGatewayFile(stack.controlPlane.db.prisma, stack.controlPlane.records, parseGatewayFile(compatGatewayYaml(stack.simulator.url)));
  }
  const { key } = await stack.mintKey();
  const url = stack.proxy.url;
  if (options.compatFile) await waitForAlias(url, key);
  stack.simulator.stats.clear();
  const upstream = () => stack.simulator.stats.requests.filter((record) => !record.path.startsWith("/v1/models"));
  return {
    stack,
    url,
    key,
    openai: new OpenAI({ baseURL: `${url}/v1`, apiKey: key, maxRetries: 0 }),
    anthropic: new Anthropic({ baseURL: url, apiKey: key, maxRetries: 0 }),
    upstream,
    lastUpstream: () => {
      const records = upstream();
      expect(records.length, "the simulator saw no request").toBeGreaterThan(0);
      return records.at(-1)!;
    },
    resetUpstream: () => {
      stack.simulator.faults.clear();
      stack.simulator.stats.clear();
    },
    close: () => stack.close(),
  };
}

/** The re-applied file reaches the proxy through its routing refresh; give it a moment (a 404 after 2 s is the test's to report). */
async function waitForAlias(url: string, key: string): Promise<void> {
  const deadline = Date.now() + 2_000;
  while (Date.now() < deadline) {
    const response = await fetch(`${url}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json", "anthropic-version": "2023-06-01" },
      body: JSON.stringify({ model: "claude-sonnet-4-5-20250929", max_tokens: 1, messages: [{ role: "user", content: "ping" }] }),
    }).catch(() => null);
    await response?.arrayBuffer();
    if (response && response.status !== 404) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The simulator's deterministic answer to a last user message `seed`: `words` words (12 by default). */
export function expectedText(seed: string, words = 12): string {
  return generateWords(seed, words).join(" ");
}

/** The usage the simulator reported for `record` (it must have completed). */
export function reported(record: StatsRecord): { input: number; output: number } {
  expect(record.usage, `simulator request ${record.path} did not complete`).not.toBeNull();
  expect(record.usage!.input_tokens).toBeGreaterThan(0);
  expect(record.usage!.output_tokens).toBeGreaterThan(0);
  return { input: record.usage!.input_tokens, output: record.usage!.output_tokens };
}

/** Where a replay puts the recorder's `$SCRATCH` placeholder (the client's scratch HOME and work dir). */
export const REPLAY_SCRATCH = join(tmpdir(), "client-compat-replay");

/** A request of apps/clients' recorder (`pnpm clients:record`), as written to `fixtures/<client>-<version>/`. */
export interface Recording {
  recorded_from?: string;
  scenario?: string;
  method: string;
  path: string;
  /** Credentials truncated (`sk-P7L2…`), `host` as `127.0.0.1:$PORT`. */
  headers: Record<string, string>;
  body: Record<string, unknown>;
  status?: number | null;
}

/** A recording of `fixtures/` with its `$SCRATCH` placeholders filled (`REPLAY_SCRATCH`). */
export function recording(name: string): Recording {
  const text = readFileSync(new URL(`fixtures/${name}`, import.meta.url), "utf8");
  return JSON.parse(text.split("$SCRATCH").join(REPLAY_SCRATCH)) as Recording;
}

/** Headers of the connection, not of the client: fetch sets its own. */
const TRANSPORT_HEADERS = new Set(["host", "content-length", "connection", "transfer-encoding"]);
const CREDENTIAL_HEADERS = new Set(["authorization", "x-api-key"]);

/**
 * The recorded headers as the client sent them, with the real `key` where the client put its
 * (truncated) credential: `x-api-key` or `authorization: Bearer`. The transport's headers are left to fetch.
 */
export function replayHeaders(rec: Recording, key: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(rec.headers)) {
    if (TRANSPORT_HEADERS.has(name)) continue;
    headers[name] = !CREDENTIAL_HEADERS.has(name) ? value : name === "authorization" ? `Bearer ${key}` : key;
  }
  return headers;
}

/** A recorded request body of this folder's `fixtures/`. */
export function fixture(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL(`fixtures/${name}`, import.meta.url), "utf8")) as Record<string, unknown>;
}

/** `x-gateway-dropped-params` as a list of paths (empty when the header is absent). */
export function droppedParams(headers: Headers): string[] {
  const value = headers.get("x-gateway-dropped-params");
  if (value === null) return [];
  return value.split(",").map((path) => path.trim()).filter((path) => path.length > 0);
}

export interface SseEvent {
  event: string | undefined;
  data: Record<string, unknown>;
}

/** Server-sent events of a body, with their JSON data (a `[DONE]` line left out). */
export function parseSse(text: string): SseEvent[] {
  return sseEvents(text)
    .filter((event) => event.data !== "[DONE]")
    .map((event) => ({ event: event.event, data: JSON.parse(event.data) as Record<string, unknown> }));
}

/**
 * Anthropic's stream grammar: message_start, then for each block (indices 0, 1, ... in order)
 * content_block_start, its deltas, content_block_stop; then one message_delta and message_stop.
 * `ping` may come anywhere after message_start. Every event's name equals its data's `type`.
 */
export function expectMessagesEventOrder(events: SseEvent[]): void {
  const types = events.map((event) => event.data.type as string);
  for (const event of events) if (event.event !== undefined) expect(event.event).toBe(event.data.type);
  expect(types[0]).toBe("message_start");
  expect(types.at(-1)).toBe("message_stop");
  expect(types.filter((type) => type === "message_start")).toHaveLength(1);
  expect(types.filter((type) => type === "message_delta")).toHaveLength(1);
  expect(types.at(-2)).toBe("message_delta");
  let open: number | null = null;
  let next = 0;
  for (const { data } of events.slice(1, -2)) {
    switch (data.type) {
      case "ping":
        break;
      case "content_block_start":
        expect(open, "a block started while another is open").toBeNull();
        expect(data.index).toBe(next);
        open = next;
        next += 1;
        break;
      case "content_block_delta":
        expect(data.index).toBe(open);
        break;
      case "content_block_stop":
        expect(data.index).toBe(open);
        open = null;
        break;
      default:
        throw new Error(`unexpected event ${String(data.type)} inside a Messages stream: ${types.join(" ")}`);
    }
  }
  expect(open, "a block was never stopped").toBeNull();
  expect(next, "no content block").toBeGreaterThan(0);
}

/**
 * Responses stream grammar: response.created, response.in_progress, ... response.completed last,
 * sequence numbers 0, 1, 2, ...; each output item added before its deltas and done after them.
 */
export function expectResponsesEventOrder(events: { type: string; sequence_number?: number; output_index?: number }[]): void {
  const types = events.map((event) => event.type);
  expect(types[0]).toBe("response.created");
  expect(types[1]).toBe("response.in_progress");
  expect(types.at(-1)).toBe("response.completed");
  expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
  const added = new Set<number>();
  const done = new Set<number>();
  for (const event of events) {
    if (event.type === "response.output_item.added") {
      expect(added.has(event.output_index!)).toBe(false);
      added.add(event.output_index!);
    } else if (event.type === "response.output_item.done") {
      expect(added.has(event.output_index!)).toBe(true);
      done.add(event.output_index!);
    } else if (event.output_index !== undefined) {
      expect(added.has(event.output_index), `${event.type} before its item was added`).toBe(true);
      expect(done.has(event.output_index), `${event.type} after its item was done`).toBe(false);
    }
  }
  expect([...done].sort()).toEqual([...added].sort());
  expect(added.size).toBeGreaterThan(0);
}
