import { describe, expect, it } from "vitest";
import { OPENCODE_PROVIDER_IDS, opencodeResult, runOpencode, scratch, VERSIONS, type OpencodeProvider, type RunResult } from "../src/clients.ts";
import { startRecorder, type RecordedExchange } from "../src/recorder.ts";
import { carriesToolResult, completed, ctx, expectBilled, generatedText, marker, mintKey, toolDirective, upstream } from "./support/suite.ts";

/**
 * opencode, the current release (`opencode run --format json`), against the demo gateway with the
 * simulator in strict mode, in all three of its provider modes (the AI SDK's anthropic, openai
 * (Responses) and openai-compatible (Chat Completions) providers in a scratch config), each on an
 * Anthropic-shape and an OpenAI-shape model: a two-step tool use (its `bash` tool runs `echo`),
 * streamed, billed; and the model it picks when none is named.
 */
const LIMITS = { "claude-sonnet-5-5": { context: 1_000_000, output: 128_000 }, "gpt-4o-mini": { context: 128_000, output: 16_384 } };
const MODELS: Record<OpencodeProvider, typeof LIMITS> = { anthropic: LIMITS, openai: LIMITS, "openai-compatible": LIMITS };
const PATHS: Record<OpencodeProvider, string> = { anthropic: "/v1/messages", openai: "/v1/responses", "openai-compatible": "/v1/chat/completions" };

interface Outcome {
  run: RunResult;
  text: string | null;
  sent: RecordedExchange[];
  mark: string;
  keyId: string;
}

async function opencode(name: string, options: { model?: string; prompt?: (mark: string) => string }): Promise<Outcome> {
  const { id, key } = await mintKey(`opencode ${name}`);
  const mark = marker();
  const s = scratch(`opencode-${name}`);
  const recorder = await startRecorder(ctx().proxyUrl);
  try {
    const prompt = options.prompt?.(mark) ?? `Say hello, ${mark}.`;
    const run = await runOpencode(s, { baseUrl: recorder.url, key, prompt, model: options.model, models: MODELS });
    const result = opencodeResult(run.stdout);
    const report = `exit ${run.code}${run.timedOut ? " (timed out)" : ""} after ${run.durationMs} ms\n${run.stdout.slice(-3000)}\n${run.stderr.slice(-2000)}\n${recorder.exchanges.map((e) => `${e.method} ${e.path} -> ${e.status}`).join("\n")}`;
    expect(run.timedOut, report).toBe(false);
    expect(result.errors, report).toEqual([]);
    expect(run.code, report).toBe(0);
    return { run, text: result.text, sent: recorder.exchanges, mark, keyId: id };
  } finally {
    await recorder.close();
    s.remove();
  }
}

function expectAnswered(sent: RecordedExchange[]): void {
  const failed = sent.filter((exchange) => exchange.status === null || exchange.status >= 400);
  expect(failed.map((exchange) => `${exchange.method} ${exchange.path} -> ${exchange.status}`)).toEqual([]);
}

/** The agent's turns (opencode's title request offers no tools). */
async function turns(mark: string) {
  return completed(await upstream(mark)).filter((record) => ((record.body as { tools?: unknown[] }).tools ?? []).length > 0);
}

const CASES = (["anthropic", "openai", "openai-compatible"] as const).flatMap((provider) =>
  (["claude-sonnet-5-5", "gpt-4o-mini"] as const).map((model) => ({ provider, model, ref: `${OPENCODE_PROVIDER_IDS[provider]}/${model}` })),
);

describe.concurrent(`opencode ${VERSIONS.opencode}`, () => {
  it.each(CASES)("$provider provider, $model: a two-step tool use (bash runs echo), the output goes back upstream, the final text is printed, billed", async ({ provider, model, ref }) => {
    const outcome = await opencode(`${provider}-${model}`, {
      model: ref,
      prompt: (mark) => `Print a greeting with the shell. ${mark} ${toolDirective("bash", { command: `echo hello-${mark}`, description: "Print a greeting" })}`,
    });
    expectAnswered(outcome.sent);
    const sentPaths = new Set(outcome.sent.filter((exchange) => exchange.method === "POST").map((exchange) => exchange.path.split("?")[0]));
    expect([...sentPaths]).toEqual([PATHS[provider]]);
    const records = await turns(outcome.mark);
    expect(records.length, "a tool call and the turn after it").toBeGreaterThanOrEqual(2);
    const final = records.at(-1)!;
    expect(final.stream).toBe(true);
    expect(carriesToolResult(final, `hello-${outcome.mark}`), "the command's output went back upstream").toBe(true);
    expect(outcome.text).toBe(generatedText(final));
    const rows = await expectBilled(outcome.keyId, outcome.mark);
    expect(rows.every((row) => row.model === model)).toBe(true);
  });

  it("no --model: it picks one of the configured models by itself, which answers, streamed, billed", async () => {
    const outcome = await opencode("default", {});
    expectAnswered(outcome.sent);
    const sentModels = new Set(outcome.sent.filter((exchange) => exchange.method === "POST").map((exchange) => (exchange.body as { model?: string }).model));
    expect([...sentModels].every((model) => model !== undefined && model in LIMITS), [...sentModels].join()).toBe(true);
    const records = await turns(outcome.mark);
    expect(records.length).toBeGreaterThan(0);
    expect(outcome.text).toBe(generatedText(records.at(-1)!));
    await expectBilled(outcome.keyId, outcome.mark);
  });
});
