import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { claudeResult, runClaude, scratch, VERSIONS, type RunResult } from "../src/clients.ts";
import { startRecorder, type RecordedExchange } from "../src/recorder.ts";
import { carriesToolResult, completed, ctx, expectBilled, generatedText, marker, mintKey, toolDirective, upstream } from "./support/suite.ts";

/**
 * Claude Code, the current release (`claude -p … --output-format stream-json --verbose`), against
 * the demo gateway with the simulator in strict mode: its default model, `--model` aliases, an
 * OpenAI-shape model, a two-step tool use, streamed, billed.
 */
interface Outcome {
  run: RunResult;
  text: string | null;
  sent: RecordedExchange[];
  mark: string;
  keyId: string;
}

async function claude(name: string, options: { model?: string; prompt?: (mark: string, work: string) => string; env?: Record<string, string>; allowedTools?: string[]; files?: Record<string, string> } = {}): Promise<Outcome> {
  const { id, key } = await mintKey(`claude-code ${name}`);
  const mark = marker();
  const s = scratch(`claude-${name}`);
  const recorder = await startRecorder(ctx().proxyUrl);
  try {
    for (const [file, content] of Object.entries(options.files ?? {})) writeFileSync(join(s.work, file), content);
    const prompt = options.prompt?.(mark, s.work) ?? `Say hello, ${mark}.`;
    const run = await runClaude(s, { baseUrl: recorder.url, key, prompt, model: options.model, env: options.env, allowedTools: options.allowedTools });
    const result = claudeResult(run.stdout);
    const report = `exit ${run.code}${run.timedOut ? " (timed out)" : ""} after ${run.durationMs} ms\n${run.stdout.slice(-3000)}\n${run.stderr.slice(-2000)}\n${recorder.exchanges.map((e) => `${e.method} ${e.path} -> ${e.status}`).join("\n")}`;
    expect(run.timedOut, report).toBe(false);
    expect(run.code, report).toBe(0);
    expect(result.isError, report).toBe(false);
    return { run, text: result.text, sent: recorder.exchanges, mark, keyId: id };
  } finally {
    await recorder.close();
    s.remove();
  }
}

/** The last completed upstream call of the run that offered tools (the agent's turn, not a side request). */
async function lastTurn(mark: string) {
  const records = completed(await upstream(mark)).filter((record) => ((record.body as { tools?: unknown[] }).tools ?? []).length > 0);
  expect(records.length, "no completed agent turn upstream").toBeGreaterThan(0);
  return records.at(-1)!;
}

/** Every request it sent got an answer the client accepted (no 4xx/5xx, no retries with fewer features). */
function expectNoRefusal(sent: RecordedExchange[]): void {
  const failed = sent.filter((exchange) => exchange.status === null || exchange.status >= 400);
  expect(failed.map((exchange) => `${exchange.method} ${exchange.path} -> ${exchange.status}`)).toEqual([]);
}

function modelsSent(sent: RecordedExchange[]): string[] {
  return [...new Set(sent.filter((exchange) => exchange.method === "POST" && exchange.path.startsWith("/v1/messages")).map((exchange) => (exchange.body as { model?: string }).model ?? "?"))];
}

describe.concurrent(`Claude Code ${VERSIONS.claudeCode}`, () => {
  it("no --model: its default model name (claude-opus-5-5) answers, streamed; the text is the simulator's; billed", async () => {
    const outcome = await claude("default");
    expect(modelsSent(outcome.sent).every((model) => /^claude-(opus|sonnet|haiku)-5-5/.test(model)), modelsSent(outcome.sent).join()).toBe(true);
    expect(modelsSent(outcome.sent)).toContain("claude-opus-5-5");
    expectNoRefusal(outcome.sent);
    const turn = await lastTurn(outcome.mark);
    expect(turn.stream).toBe(true);
    expect(turn.provider).toBe("anthropic");
    expect(outcome.text).toBe(generatedText(turn));
    const rows = await expectBilled(outcome.keyId, outcome.mark);
    expect(rows.map((row) => row.model)).toContain("claude-opus-5-5");
  });

  it.each([
    ["sonnet", "claude-sonnet-5-5"],
    ["haiku", "claude-haiku-5-5"],
  ])("--model %s: sends %s, which the demo answers", async (alias, model) => {
    const outcome = await claude(alias, { model: alias });
    expect(modelsSent(outcome.sent)).toContain(model);
    expectNoRefusal(outcome.sent);
    const turn = await lastTurn(outcome.mark);
    expect(outcome.text).toBe(generatedText(turn));
    const rows = await expectBilled(outcome.keyId, outcome.mark);
    expect(rows.map((row) => row.model)).toContain(model);
  });

  it("--model with a dated Claude 5.5 name (claude-haiku-5-5-20261015): the demo's alias answers, billed under the canonical name", async () => {
    const outcome = await claude("dated", { model: "claude-haiku-5-5-20261015" });
    expect(modelsSent(outcome.sent)).toContain("claude-haiku-5-5-20261015");
    expectNoRefusal(outcome.sent);
    const turn = await lastTurn(outcome.mark);
    expect(turn.model).toBe("claude-haiku-5-5");
    expect(outcome.text).toBe(generatedText(turn));
    const rows = await expectBilled(outcome.keyId, outcome.mark);
    expect(rows.map((row) => row.model)).toContain("claude-haiku-5-5");
  });

  it("--model gpt-4o-mini (an OpenAI-shape model): Messages translated to Chat Completions, what gpt-4o-mini refuses left out, streamed, billed", async () => {
    const outcome = await claude("gpt-4o-mini", { model: "gpt-4o-mini" });
    expect(modelsSent(outcome.sent)).toEqual(["gpt-4o-mini"]);
    expectNoRefusal(outcome.sent);
    const turn = await lastTurn(outcome.mark);
    expect(turn.path).toBe("/v1/chat/completions");
    expect(turn.stream).toBe(true);
    const body = turn.body as Record<string, unknown>;
    // A real gpt-4o-mini refuses both (the strict simulator would have answered 400).
    expect(body.reasoning_effort).toBeUndefined();
    expect((body.max_completion_tokens ?? body.max_tokens ?? 0) as number).toBeLessThanOrEqual(16384);
    expect(outcome.text).toBe(generatedText(turn));
    await expectBilled(outcome.keyId, outcome.mark);
  });

  it("ANTHROPIC_MODEL=gpt-6.2-sol (Codex's reasoning model, named through the environment): answered and billed", async () => {
    const outcome = await claude("env-model", { env: { ANTHROPIC_MODEL: "gpt-6.2-sol" } });
    expect(modelsSent(outcome.sent)).toContain("gpt-6.2-sol");
    expectNoRefusal(outcome.sent);
    const turn = await lastTurn(outcome.mark);
    expect(outcome.text).toBe(generatedText(turn));
    await expectBilled(outcome.keyId, outcome.mark);
  });

  it("a two-step tool use on the default model: Bash runs `echo`, its output goes back upstream, the final text is printed", async () => {
    const outcome = await claude("tool-bash", {
      prompt: (mark) => `Print a greeting with the shell. ${mark} ${toolDirective("Bash", { command: `echo hello-${mark}`, description: "Print a greeting" })}`,
      allowedTools: ["Bash(echo:*)"],
    });
    expectNoRefusal(outcome.sent);
    const records = completed(await upstream(outcome.mark)).filter((record) => ((record.body as { tools?: unknown[] }).tools ?? []).length > 0);
    expect(records.length, "a tool call and the turn after it").toBeGreaterThanOrEqual(2);
    const final = records.at(-1)!;
    expect(carriesToolResult(final, `hello-${outcome.mark}`), "the tool's output went back upstream").toBe(true);
    expect(outcome.text).toBe(generatedText(final));
    await expectBilled(outcome.keyId, outcome.mark);
  });

  it("a two-step tool use on an OpenAI-shape model: Read of a scratch file, its content goes back upstream as a tool message", async () => {
    const outcome = await claude("tool-read-gpt", {
      model: "gpt-4o-mini",
      files: { "note.txt": "the note says: kumquat\n" },
      prompt: (mark, work) => `Read the note. ${mark} ${toolDirective("Read", { file_path: join(work, "note.txt") })}`,
      allowedTools: ["Read"],
    });
    expectNoRefusal(outcome.sent);
    const records = completed(await upstream(outcome.mark)).filter((record) => ((record.body as { tools?: unknown[] }).tools ?? []).length > 0);
    expect(records.length).toBeGreaterThanOrEqual(2);
    const final = records.at(-1)!;
    expect(final.path).toBe("/v1/chat/completions");
    expect(carriesToolResult(final, "kumquat"), "the file's content went back upstream").toBe(true);
    expect(outcome.text).toBe(generatedText(final));
    await expectBilled(outcome.keyId, outcome.mark);
  });
});
