// Re-records the client-compat fixtures (apps/proxy/test/client-compat/fixtures/<client>-<version>/)
// from the CLIs installed in this package: starts the suite's stack (demo gateway file, strict
// simulator), puts a logging pass-through in front of it, runs each CLI once per scenario and writes
// every request it sent (method, path, headers with credentials redacted, body) and the status it got.
//
//   pnpm clients:record            (from the repository root; Postgres and Redis must answer)
//
// A new client release is then: bump the version in apps/clients/package.json, `pnpm install`,
// `pnpm clients:record`, point the replay tests at the new folder.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { encodeToolArgs } from "@gateway/simulator";
import { runClaude, runCodex, runOpencode, scratch, VERSIONS, type RunResult, type Scratch } from "../src/clients.ts";
import { startRecorder, type RecordedExchange } from "../src/recorder.ts";
import { startClientStack } from "../test/support/global-stack.ts";

const FIXTURES = fileURLToPath(new URL("../../proxy/test/client-compat/fixtures/", import.meta.url));

interface Scenario {
  client: "claude-code" | "codex" | "opencode";
  name: string;
  /** Names for the requests of the run, in order (the rest are numbered). */
  files: string[];
  run(s: Scratch, baseUrl: string, key: string): Promise<RunResult>;
}

const tool = (name: string, args: Record<string, unknown>) => `#sim:tool=${name} #sim:tool_args=${encodeToolArgs(args)}`;
const LIMITS = { "claude-sonnet-5-5": { context: 1_000_000, output: 128_000 }, "gpt-4o-mini": { context: 128_000, output: 16_384 } };
const OPENCODE_MODELS = { anthropic: LIMITS, openai: LIMITS, "openai-compatible": LIMITS };

const SCENARIOS: Scenario[] = [
  {
    client: "claude-code",
    name: "default model, Bash tool use",
    files: ["turn-1-tool-use.json", "turn-2-after-tool-result.json"],
    run: (s, baseUrl, key) => runClaude(s, { baseUrl, key, prompt: `Print a greeting with the shell. ${tool("Bash", { command: "echo hello", description: "Print a greeting" })}`, allowedTools: ["Bash(echo:*)"] }),
  },
  { client: "claude-code", name: "--model sonnet", files: ["sonnet.json"], run: (s, baseUrl, key) => runClaude(s, { baseUrl, key, prompt: "say hi", model: "sonnet" }) },
  { client: "claude-code", name: "--model haiku", files: ["haiku.json"], run: (s, baseUrl, key) => runClaude(s, { baseUrl, key, prompt: "say hi", model: "haiku" }) },
  { client: "claude-code", name: "--model gpt-4o-mini", files: ["gpt-4o-mini.json"], run: (s, baseUrl, key) => runClaude(s, { baseUrl, key, prompt: "say hi", model: "gpt-4o-mini" }) },
  {
    client: "codex",
    name: "built-in provider, default model (WebSocket attempt first)",
    files: ["builtin-ws-upgrade.json", "builtin-default-model.json"],
    run: (s, baseUrl, key) => runCodex(s, { baseUrl, key, prompt: "say hi", provider: "builtin" }),
  },
  {
    client: "codex",
    name: "custom provider, gpt-4o-mini, exec_command tool use",
    files: ["turn-1-function-call.json", "turn-2-after-tool-output.json"],
    run: (s, baseUrl, key) => runCodex(s, { baseUrl, key, prompt: `Print a greeting with the shell. ${tool("exec_command", { cmd: "echo hello" })}`, provider: "custom", model: "gpt-4o-mini" }),
  },
  { client: "codex", name: "custom provider, claude-sonnet-5-5", files: ["claude-sonnet-5-5.json"], run: (s, baseUrl, key) => runCodex(s, { baseUrl, key, prompt: "say hi", provider: "custom", model: "claude-sonnet-5-5" }) },
  ...(["anthropic", "openai", "openai-compatible"] as const).map(
    (kind): Scenario => ({
      client: "opencode",
      name: `${kind} provider, claude-sonnet-5-5`,
      files: [`${kind}-title.json`, `${kind}-turn.json`],
      run: (s, baseUrl, key) => runOpencode(s, { baseUrl, key, prompt: "say hi", models: OPENCODE_MODELS, model: `gateway-${kind === "openai-compatible" ? "compatible" : kind}/claude-sonnet-5-5` }),
    }),
  ),
];

const VERSION_OF = { "claude-code": VERSIONS.claudeCode, codex: VERSIONS.codex, opencode: VERSIONS.opencode };

/** Machine- and run-specific text (scratch paths, the recorder's port) replaced by placeholders. */
function normalise(value: unknown, s: Scratch, host: string): unknown {
  const text = JSON.stringify(value).split(s.root).join("$SCRATCH").split(host).join("127.0.0.1:$PORT");
  return JSON.parse(text) as unknown;
}

/** opencode's title request and its turn run at once: the title request (no tools) first. */
function ordered(scenario: Scenario, exchanges: RecordedExchange[]): RecordedExchange[] {
  if (scenario.client !== "opencode") return exchanges;
  const hasTools = (exchange: RecordedExchange) => ((exchange.body as { tools?: unknown[] } | null)?.tools ?? []).length > 0;
  return [...exchanges.filter((exchange) => !hasTools(exchange)), ...exchanges.filter(hasTools)];
}

const stack = await startClientStack();
let failed = 0;
try {
  const { proxyUrl, vendorToken } = stack.context;
  const response = await fetch(`${proxyUrl}/api/keys`, {
    method: "POST",
    headers: { authorization: `Bearer ${vendorToken}`, "content-type": "application/json" },
    body: JSON.stringify({ server_option: "standard", name: "fixture recorder" }),
  });
  const { key } = (await response.json()) as { key: string };
  const written = new Set<string>();
  for (const scenario of SCENARIOS) {
    const dir = join(FIXTURES, `${scenario.client}-${VERSION_OF[scenario.client]}`);
    if (!written.has(dir)) {
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      written.add(dir);
    }
    const recorder = await startRecorder(proxyUrl);
    const s = scratch(`record-${scenario.client}`);
    try {
      const result = await scenario.run(s, recorder.url, key);
      const host = new URL(recorder.url).host;
      const exchanges = ordered(scenario, recorder.exchanges);
      const ok = result.code === 0 && !result.timedOut;
      if (!ok) failed += 1;
      console.log(`${ok ? "ok  " : "FAIL"} ${scenario.client} ${VERSION_OF[scenario.client]}: ${scenario.name} (${exchanges.length} requests, ${result.durationMs} ms)`);
      if (!ok) console.log(`${result.stdout.slice(-1500)}\n${result.stderr.slice(-1500)}`);
      exchanges.forEach((exchange, index) => {
        const file = scenario.files[index] ?? `${scenario.files[0]!.replace(/\.json$/, "")}-${index + 1}.json`;
        const fixture = {
          recorded_from: `${scenario.client} ${VERSION_OF[scenario.client]}`,
          scenario: scenario.name,
          method: exchange.method,
          path: exchange.path,
          headers: { ...exchange.headers, host: "127.0.0.1:$PORT" },
          body: normalise(exchange.body, s, host),
          status: exchange.status,
        };
        writeFileSync(join(dir, file), `${JSON.stringify(fixture, null, 2)}\n`);
        console.log(`     ${exchange.method} ${exchange.path} -> ${exchange.status}  ${join(dir, file).slice(FIXTURES.length)}`);
      });
    } finally {
      s.remove();
      await recorder.close();
    }
  }
} finally {
  await stack.close();
}
process.exit(failed === 0 ? 0 : 1);
