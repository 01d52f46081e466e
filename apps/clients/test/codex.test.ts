import { describe, expect, it } from "vitest";
import { codexResult, runCodex, scratch, VERSIONS, type CodexOptions, type RunResult } from "../src/clients.ts";
import { startRecorder, type RecordedExchange } from "../src/recorder.ts";
import { carriesToolResult, completed, ctx, expectBilled, generatedText, marker, mintKey, toolDirective, upstream } from "./support/suite.ts";

/**
 * Codex CLI, the current release (`codex exec --json`), against the demo gateway with the simulator
 * in strict mode: over its built-in OpenAI provider, which speaks Responses over a WebSocket on
 * GET /v1/responses (contract section 18: several responses per socket, `store: false` and
 * `previous_response_id` across them, each billed once), and over a custom provider
 * (`[model_providers]`, wire_api "responses", HTTP); its default model and a Claude model; a
 * two-step tool use (exec_command runs `echo`) on both, streamed, billed.
 */
interface Outcome {
  run: RunResult;
  text: string | null;
  sent: RecordedExchange[];
  mark: string;
  keyId: string;
}

/** Codex's notice for a model it has no metadata for: an `error` item, but the turn goes on. */
const NOTICE = /^Model metadata for `[^`]+` not found/;

async function codex(name: string, options: Pick<CodexOptions, "provider" | "model"> & { prompt?: (mark: string) => string }): Promise<Outcome> {
  const { id, key } = await mintKey(`codex ${name}`);
  const mark = marker();
  const s = scratch(`codex-${name}`);
  const recorder = await startRecorder(ctx().proxyUrl);
  try {
    const prompt = options.prompt?.(mark) ?? `Say hello, ${mark}.`;
    const run = await runCodex(s, { baseUrl: recorder.url, key, prompt, model: options.model, provider: options.provider });
    const result = codexResult(run.stdout);
    const report = `exit ${run.code}${run.timedOut ? " (timed out)" : ""} after ${run.durationMs} ms\n${run.stdout.slice(-3000)}\n${run.stderr.slice(-2000)}\n${recorder.exchanges.map((e) => `${e.at} ms ${e.method} ${e.path} -> ${e.status}`).join("\n")}`;
    expect(run.timedOut, report).toBe(false);
    expect(run.code, report).toBe(0);
    expect(result.errors.filter((error) => !NOTICE.test(error)), report).toEqual([]);
    expect(result.events.some((event) => event.type === "turn.completed"), report).toBe(true);
    return { run, text: result.text, sent: recorder.exchanges, mark, keyId: id };
  } finally {
    await recorder.close();
    s.remove();
  }
}

const posts = (sent: RecordedExchange[]) => sent.filter((exchange) => exchange.method === "POST" && exchange.path.startsWith("/v1/responses"));

function expectAnswered(sent: RecordedExchange[]): void {
  const failed = posts(sent).filter((exchange) => exchange.status !== 200);
  expect(failed.map((exchange) => `${exchange.method} ${exchange.path} -> ${exchange.status}`)).toEqual([]);
}

/** Codex's built-in provider spoke over the WebSocket: its upgrade switched protocols and no turn went over HTTP. */
function expectOverWebSocket(sent: RecordedExchange[]): void {
  const upgrades = sent.filter((exchange) => exchange.method === "GET" && exchange.path.startsWith("/v1/responses"));
  expect(upgrades.length, "Codex opens the WebSocket").toBeGreaterThanOrEqual(1);
  expect(upgrades.map((exchange) => [exchange.headers.upgrade, exchange.status])).toEqual(upgrades.map(() => ["websocket", 101]));
  expect(posts(sent).map((exchange) => exchange.path)).toEqual([]);
}

/** The last completed upstream call of the run (Codex makes no side requests in `exec`; with its own models it may offer no tools). */
async function lastTurn(mark: string) {
  const records = completed(await upstream(mark));
  expect(records.length, "no completed agent turn upstream").toBeGreaterThan(0);
  return records.at(-1)!;
}

describe.concurrent(`Codex CLI ${VERSIONS.codex}`, () => {
  it("built-in provider, no model set: Responses over the WebSocket (GET /v1/responses switches protocols, no POST); its default model (gpt-6.2-sol) answers, streamed, billed", async () => {
    const outcome = await codex("builtin-default", { provider: "builtin" });
    expectOverWebSocket(outcome.sent);
    expect(outcome.run.durationMs, "the whole run").toBeLessThan(15_000);
    const turn = await lastTurn(outcome.mark);
    expect(turn.path).toBe("/v1/responses");
    expect(turn.stream).toBe(true);
    expect((turn.body as { model: string }).model).toBeTruthy();
    expect(outcome.text).toBe(generatedText(turn));
    const rows = await expectBilled(outcome.keyId, outcome.mark);
    expect(rows.map((row) => row.model)).toContain("gpt-6.2-sol");
  });

  it("built-in provider on a Claude model (claude-sonnet-5-5): over the WebSocket, Responses to Messages, Codex's bookkeeping and tools accepted, streamed, billed", async () => {
    const outcome = await codex("builtin-claude", { provider: "builtin", model: "claude-sonnet-5-5" });
    expectOverWebSocket(outcome.sent);
    const turn = await lastTurn(outcome.mark);
    expect(turn.path).toBe("/v1/messages");
    expect(turn.stream).toBe(true);
    expect(outcome.text).toBe(generatedText(turn));
    const rows = await expectBilled(outcome.keyId, outcome.mark);
    expect(rows.map((row) => row.model)).toContain("claude-sonnet-5-5");
  });

  it("custom provider (wire_api responses), no model set: the default model answers, and no WebSocket is tried", async () => {
    const outcome = await codex("custom-default", { provider: "custom" });
    expect(outcome.sent.filter((exchange) => exchange.method === "GET")).toEqual([]);
    expect((posts(outcome.sent)[0]!.body as { model: string }).model).toBe("gpt-6.2-sol");
    expectAnswered(outcome.sent);
    const turn = await lastTurn(outcome.mark);
    expect(outcome.text).toBe(generatedText(turn));
    await expectBilled(outcome.keyId, outcome.mark);
  });

  it.each([
    ["custom", "gpt-4o-mini", "/v1/responses"],
    ["custom", "claude-sonnet-5-5", "/v1/messages"],
    ["builtin", "gpt-4o-mini", "/v1/responses"],
    ["builtin", "claude-sonnet-5-5", "/v1/messages"],
  ] as const)("%s provider on %s: a two-step tool use (exec_command runs echo), its output goes back upstream, the final text is printed; each turn billed once", async (provider, model, path) => {
    const outcome = await codex(`${provider}-tool-${model}`, {
      provider,
      model,
      prompt: (mark) => `Print a greeting with the shell. ${mark} ${toolDirective("exec_command", { cmd: `echo hello-${mark}` })}`,
    });
    expectAnswered(outcome.sent);
    const result = codexResult(outcome.run.stdout);
    expect(result.commands.map((command) => command.aggregated_output)).toContain(`hello-${outcome.mark}\n`);
    const records = completed(await upstream(outcome.mark));
    expect(records.length).toBeGreaterThanOrEqual(2);
    const final = records.at(-1)!;
    expect(final.path).toBe(path);
    expect(carriesToolResult(final, `hello-${outcome.mark}`), "the command's output went back upstream").toBe(true);
    expect(outcome.text).toBe(generatedText(final));
    const rows = await expectBilled(outcome.keyId, outcome.mark);
    expect(rows.every((row) => row.model === model)).toBe(true);
    // Once each: one ledger row per request id, one per answered upstream call of the run. Over the
    // WebSocket Codex may first send a warm-up response.create (no input yet, so no marker): it is
    // answered and billed like any response, the one row more.
    expect(new Set(rows.map((row) => row.requestId)).size).toBe(rows.length);
    expect(rows.length - records.length).toBeGreaterThanOrEqual(0);
    expect(rows.length - records.length).toBeLessThanOrEqual(provider === "builtin" ? 1 : 0);
    if (provider === "builtin") expectOverWebSocket(outcome.sent);
  });
});
