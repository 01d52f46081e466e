import { describe, expect, it } from "vitest";
import { geminiResult, runGemini, scratch, VERSIONS, type RunResult } from "../src/clients.ts";
import { startRecorder, type RecordedExchange } from "../src/recorder.ts";
import { completed, ctx, expectBilled, marker, mintKey, upstream } from "./support/suite.ts";

/**
 * Gemini CLI, the current release (`gemini -p … --output-format json`), against the demo gateway
 * with the simulator in strict mode, through the gateway's Gemini routes (`/v1beta`, its
 * `GOOGLE_GEMINI_BASE_URL` with GEMINI_API_KEY): its default model on the Gemini-shape upstream, and
 * `--model` on an OpenAI-shape and an Anthropic-shape model; answered, streamed, billed.
 */
interface Outcome {
  run: RunResult;
  text: string | null;
  sent: RecordedExchange[];
  mark: string;
  keyId: string;
}

async function gemini(name: string, options: { model?: string } = {}): Promise<Outcome> {
  const { id, key } = await mintKey(`gemini-cli ${name}`);
  const mark = marker();
  const s = scratch(`gemini-${name}`);
  const recorder = await startRecorder(ctx().proxyUrl);
  try {
    const run = await runGemini(s, { baseUrl: recorder.url, key, prompt: `Say hello, ${mark}.`, model: options.model });
    const result = geminiResult(run.stdout);
    const report = `exit ${run.code}${run.timedOut ? " (timed out)" : ""} after ${run.durationMs} ms\n${run.stdout.slice(-3000)}\n${run.stderr.slice(-3000)}\n${recorder.exchanges.map((e) => `${e.at} ms ${e.method} ${e.path} -> ${e.status}`).join("\n")}`;
    expect(run.timedOut, report).toBe(false);
    expect(run.code, report).toBe(0);
    expect(result.error, report).toBeNull();
    return { run, text: result.text, sent: recorder.exchanges, mark, keyId: id };
  } finally {
    await recorder.close();
    s.remove();
  }
}

const generates = (sent: RecordedExchange[]) => sent.filter((exchange) => exchange.method === "POST" && /:(stream)?[gG]enerateContent/.test(exchange.path));

/** Every request it sent got an answer it accepted (no 4xx/5xx, so no retries). */
function expectNoRefusal(sent: RecordedExchange[]): void {
  const failed = sent.filter((exchange) => exchange.status === null || exchange.status >= 400);
  expect(failed.map((exchange) => `${exchange.method} ${exchange.path} -> ${exchange.status}`)).toEqual([]);
}

function modelsSent(sent: RecordedExchange[]): string[] {
  return [...new Set(generates(sent).map((exchange) => /\/models\/([^:]+):/.exec(exchange.path)?.[1] ?? "?"))];
}

describe.concurrent(`Gemini CLI ${VERSIONS.geminiCli}`, () => {
  it("no --model: its router (gemini-3.5-flash-lite) picks the turn's model among its defaults; all answered on the Gemini-shape upstream, streamed, billed", async () => {
    const outcome = await gemini("default");
    expectNoRefusal(outcome.sent);
    const models = modelsSent(outcome.sent);
    expect(models).toContain("gemini-3.5-flash-lite");
    expect(models.length, models.join()).toBeGreaterThanOrEqual(2);
    expect(generates(outcome.sent).every((exchange) => exchange.path.startsWith("/v1beta/models/"))).toBe(true);
    expect(generates(outcome.sent).some((exchange) => exchange.path.includes(":streamGenerateContent?alt=sse"))).toBe(true);
    expect(outcome.text?.length ?? 0).toBeGreaterThan(0);
    const served = completed(await upstream(outcome.mark));
    expect(served.every((record) => record.provider === "gemini")).toBe(true);
    const rows = await expectBilled(outcome.keyId, outcome.mark);
    expect(rows.map((row) => row.model)).toContain("gemini-3.5-flash-lite");
    expect(rows.every((row) => row.endpoint === "gemini.generate_content")).toBe(true);
  });

  it("--model gemini-3.1-pro-preview (its default Pro model, Gemini 3: signatures): answered on the Gemini-shape upstream, billed", async () => {
    const outcome = await gemini("pro", { model: "gemini-3.1-pro-preview" });
    expectNoRefusal(outcome.sent);
    expect(modelsSent(outcome.sent)).toContain("gemini-3.1-pro-preview");
    expect(outcome.text?.length ?? 0).toBeGreaterThan(0);
    const rows = await expectBilled(outcome.keyId, outcome.mark);
    expect(rows.map((row) => row.model)).toContain("gemini-3.1-pro-preview");
  });

  it.each([
    ["gpt-4o-mini", "/v1/chat/completions"],
    ["claude-opus-5-5", "/v1/messages"],
  ])("--model %s: Gemini's requests translated to %s upstream, answered, billed", async (model, path) => {
    const outcome = await gemini(model, { model });
    expectNoRefusal(outcome.sent);
    expect(modelsSent(outcome.sent)).toContain(model);
    expect(outcome.text?.length ?? 0).toBeGreaterThan(0);
    const served = completed(await upstream(outcome.mark));
    expect(served.map((record) => record.path)).toContain(path);
    const rows = await expectBilled(outcome.keyId, outcome.mark);
    expect(rows.map((row) => row.model)).toContain(model);
  });
});
