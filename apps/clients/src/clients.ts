// The real agent CLIs, installed from npm as this package's devDependencies, run headless against a
// gateway: each run in its own scratch HOME (and config dirs), with a minimal environment (nothing
// of the caller's ANTHROPIC_* / OPENAI_* settings), telemetry, update checks and non-essential
// traffic off, and a bounded run time (the whole process group is killed when it runs over).
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));
const BIN = join(PACKAGE_DIR, "node_modules", ".bin");
const require = createRequire(import.meta.url);

export const CLAUDE = join(BIN, "claude");
export const CODEX = join(BIN, "codex");
export const OPENCODE = join(BIN, "opencode");
export const GEMINI = join(BIN, "gemini");

/** The installed version of an npm package of this package (from its package.json). */
export function installedVersion(name: string): string {
  const path = require.resolve(`${name}/package.json`, { paths: [PACKAGE_DIR] });
  return (JSON.parse(readFileSync(path, "utf8")) as { version: string }).version;
}

export const VERSIONS = {
  claudeCode: installedVersion("@anthropic-ai/claude-code"),
  codex: installedVersion("@openai/codex"),
  opencode: installedVersion("opencode-ai"),
  geminiCli: installedVersion("@google/gemini-cli"),
};

/** The default time one CLI run may take before it is killed. */
export const RUN_TIMEOUT_MS = 90_000;

export interface Scratch {
  root: string;
  home: string;
  /** The working directory the CLI runs in (outside any git repository). */
  work: string;
  remove(): void;
}

/** A fresh scratch folder: `home/` (HOME) and `work/` (the CLI's working directory). */
export function scratch(name: string): Scratch {
  const root = mkdtempSync(join(tmpdir(), `gw-clients-${name.replace(/[^\w.-]/g, "_")}-`));
  const home = join(root, "home");
  const work = join(root, "work");
  mkdirSync(home, { recursive: true });
  mkdirSync(work, { recursive: true });
  return { root, home, work, remove: () => rmSync(root, { recursive: true, force: true }) };
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  durationMs: number;
  timedOut: boolean;
}

/** The base environment of every run: PATH (this Node first), HOME, a plain terminal, no colour. */
function baseEnv(s: Scratch): Record<string, string> {
  return {
    PATH: `${dirname(process.execPath)}:${process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin"}`,
    HOME: s.home,
    USER: process.env.USER ?? "root",
    SHELL: "/bin/bash",
    LANG: "C.UTF-8",
    TERM: "dumb",
    NO_COLOR: "1",
    TMPDIR: s.root,
    XDG_CONFIG_HOME: join(s.home, ".config"),
    XDG_DATA_HOME: join(s.home, ".local", "share"),
    XDG_CACHE_HOME: join(s.home, ".cache"),
    XDG_STATE_HOME: join(s.home, ".local", "state"),
  };
}

/** Runs `file args` in `cwd` with exactly `env`; kills its process group after `timeoutMs`. */
export function run(file: string, args: string[], options: { cwd: string; env: Record<string, string>; timeoutMs?: number }): Promise<RunResult> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-200_000)));
    const kill = (signal: NodeJS.Signals) => {
      try {
        process.kill(-child.pid!, signal);
      } catch {
        child.kill(signal);
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill("SIGTERM");
      setTimeout(() => kill("SIGKILL"), 2_000).unref();
    }, options.timeoutMs ?? RUN_TIMEOUT_MS);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      // Anything it left behind in its group (a tool's shell) goes with it.
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // already gone
      }
      resolve({ code, signal, stdout, stderr, durationMs: Date.now() - started, timedOut });
    });
  });
}

/** JSON lines of a CLI's output (lines that do not parse are left out). */
export function jsonLines(text: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const line of text.split("\n")) {
    const trimmed = line.trim();
    if (!trimmed.startsWith("{")) continue;
    try {
      out.push(JSON.parse(trimmed) as Record<string, unknown>);
    } catch {
      // not JSON
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Claude Code: `claude -p <prompt> --output-format stream-json --verbose`

export interface ClaudeOptions {
  baseUrl: string;
  key: string;
  prompt: string;
  model?: string;
  /** Extra environment, e.g. ANTHROPIC_MODEL / ANTHROPIC_SMALL_FAST_MODEL. */
  env?: Record<string, string>;
  allowedTools?: string[];
  timeoutMs?: number;
}

export function claudeEnv(s: Scratch, options: Pick<ClaudeOptions, "baseUrl" | "key" | "env">): Record<string, string> {
  return {
    ...baseEnv(s),
    CLAUDE_CONFIG_DIR: join(s.home, ".claude"),
    ANTHROPIC_BASE_URL: options.baseUrl,
    ANTHROPIC_API_KEY: options.key,
    // No telemetry, error reports, update checks or other non-essential traffic.
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_BUG_COMMAND: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    CLAUDE_CODE_DISABLE_TERMINAL_TITLE: "1",
    ...options.env,
  };
}

export function runClaude(s: Scratch, options: ClaudeOptions): Promise<RunResult> {
  const args = ["-p", options.prompt, "--output-format", "stream-json", "--verbose"];
  if (options.model) args.push("--model", options.model);
  if (options.allowedTools?.length) args.push("--allowedTools", ...options.allowedTools);
  return run(CLAUDE, args, { cwd: s.work, env: claudeEnv(s, options), timeoutMs: options.timeoutMs });
}

/** The final text of a stream-json run (its `result` event), and whether that run ended in an error. */
export function claudeResult(stdout: string): { text: string | null; isError: boolean; events: Record<string, unknown>[] } {
  const events = jsonLines(stdout);
  const result = events.find((event) => event.type === "result");
  return { text: typeof result?.result === "string" ? result.result : null, isError: result?.is_error === true || result === undefined, events };
}

// ---------------------------------------------------------------------------------------------
// Codex CLI: `codex exec --json`, configured only by $CODEX_HOME/config.toml

export interface CodexOptions {
  /** The gateway's root URL (the OpenAI base URL is `${baseUrl}/v1`). */
  baseUrl: string;
  key: string;
  prompt: string;
  model?: string;
  /** `builtin`: Codex's own OpenAI provider (openai_base_url); `custom`: a [model_providers] entry, wire_api "responses". */
  provider: "builtin" | "custom";
  timeoutMs?: number;
}

export function codexConfig(options: Pick<CodexOptions, "baseUrl" | "provider" | "model">): string {
  const lines = [
    "# Written by the client suite: no update checks, analytics, feedback or notices.",
    "check_for_update_on_startup = false",
    'approval_policy = "never"',
    'sandbox_mode = "danger-full-access"',
  ];
  if (options.model) lines.push(`model = ${JSON.stringify(options.model)}`);
  if (options.provider === "builtin") {
    lines.push(`openai_base_url = ${JSON.stringify(`${options.baseUrl}/v1`)}`);
  } else {
    lines.push('model_provider = "gateway"');
  }
  lines.push("", "[analytics]", "enabled = false", "", "[feedback]", "enabled = false", "", "[otel]", 'exporter = "none"');
  if (options.provider === "custom") {
    lines.push(
      "",
      "[model_providers.gateway]",
      'name = "LLM gateway"',
      `base_url = ${JSON.stringify(`${options.baseUrl}/v1`)}`,
      'env_key = "GATEWAY_API_KEY"',
      'wire_api = "responses"',
      "request_max_retries = 0",
      "stream_max_retries = 0",
    );
  }
  return `${lines.join("\n")}\n`;
}

export function runCodex(s: Scratch, options: CodexOptions): Promise<RunResult> {
  const codexHome = join(s.home, ".codex");
  mkdirSync(codexHome, { recursive: true });
  writeFileSync(join(codexHome, "config.toml"), codexConfig(options));
  const env = {
    ...baseEnv(s),
    CODEX_HOME: codexHome,
    ...(options.provider === "builtin" ? { CODEX_API_KEY: options.key } : { GATEWAY_API_KEY: options.key }),
    RUST_LOG: "error",
  };
  const args = ["exec", "--json", "--skip-git-repo-check", "--color", "never"];
  if (options.model) args.push("--model", options.model);
  args.push(options.prompt);
  return run(CODEX, args, { cwd: s.work, env, timeoutMs: options.timeoutMs });
}

/** The agent's final message of a `codex exec --json` run, and the error events. */
export function codexResult(stdout: string): { text: string | null; errors: string[]; events: Record<string, unknown>[]; commands: Record<string, unknown>[] } {
  const events = jsonLines(stdout);
  const items = events.filter((event) => event.type === "item.completed").map((event) => event.item as Record<string, unknown>);
  const messages = items.filter((item) => item.type === "agent_message");
  const errors = events
    .filter((event) => event.type === "error" || event.type === "turn.failed")
    .map((event) => JSON.stringify(event))
    .concat(items.filter((item) => item.type === "error").map((item) => String(item.message)));
  return { text: (messages.at(-1)?.text as string | undefined) ?? null, errors, events, commands: items.filter((item) => item.type === "command_execution") };
}

// ---------------------------------------------------------------------------------------------
// opencode: `opencode run --format json`, with providers of all three kinds in a scratch config

export type OpencodeProvider = "anthropic" | "openai" | "openai-compatible";

export const OPENCODE_PROVIDER_IDS: Record<OpencodeProvider, string> = {
  anthropic: "gateway-anthropic",
  openai: "gateway-openai",
  "openai-compatible": "gateway-compatible",
};

export interface OpencodeOptions {
  baseUrl: string;
  key: string;
  prompt: string;
  /** The models each provider lists (the config's `models`), with their limits as a user writes them for a custom provider. */
  models: Record<OpencodeProvider, Record<string, { context: number; output: number }>>;
  /** `provider/model` for --model; none: opencode picks its default. */
  model?: string;
  timeoutMs?: number;
}

export function opencodeConfig(options: Pick<OpencodeOptions, "baseUrl" | "key" | "models">): Record<string, unknown> {
  const npm: Record<OpencodeProvider, string> = { anthropic: "@ai-sdk/anthropic", openai: "@ai-sdk/openai", "openai-compatible": "@ai-sdk/openai-compatible" };
  const provider: Record<string, unknown> = {};
  for (const kind of Object.keys(npm) as OpencodeProvider[]) {
    provider[OPENCODE_PROVIDER_IDS[kind]] = {
      npm: npm[kind],
      name: `LLM gateway (${kind})`,
      options: { baseURL: `${options.baseUrl}/v1`, apiKey: options.key },
      models: Object.fromEntries(Object.entries(options.models[kind]).map(([model, limit]) => [model, { name: model, limit }])),
    };
  }
  return {
    $schema: "https://opencode.ai/config.json",
    autoupdate: false,
    share: "disabled",
    // Only the gateway's providers: nothing loaded from models.dev or the environment.
    enabled_providers: Object.values(OPENCODE_PROVIDER_IDS),
    lsp: false,
    formatter: false,
    permission: { bash: "allow", read: "allow", edit: "deny", webfetch: "deny" },
    provider,
  };
}

export function runOpencode(s: Scratch, options: OpencodeOptions): Promise<RunResult> {
  const configPath = join(s.root, "opencode.json");
  writeFileSync(configPath, JSON.stringify(opencodeConfig(options), null, 2));
  const env = {
    ...baseEnv(s),
    OPENCODE_CONFIG: configPath,
    OPENCODE_DISABLE_AUTOUPDATE: "1",
    OPENCODE_DISABLE_MODELS_FETCH: "1",
    OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
    OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
    OPENCODE_DISABLE_SHARE: "1",
    OPENCODE_DISABLE_CLAUDE_CODE: "1",
    OPENCODE_DISABLE_EXTERNAL_SKILLS: "1",
    OPENCODE_DISABLE_PROJECT_CONFIG: "1",
    OPENCODE_DISABLE_EMBEDDED_WEB_UI: "1",
    OPENCODE_DISABLE_TERMINAL_TITLE: "1",
  };
  const args = ["run", "--format", "json", ...(process.env.OPENCODE_PRINT_LOGS_FOR_DEBUG ? ["--print-logs"] : [])];
  if (options.model) args.push("--model", options.model);
  args.push(options.prompt);
  return run(OPENCODE, args, { cwd: s.work, env, timeoutMs: options.timeoutMs });
}

/** The assistant text of an `opencode run --format json` run (its text parts, last step), and its error events. */
export function opencodeResult(stdout: string): { text: string | null; errors: Record<string, unknown>[]; events: Record<string, unknown>[]; tools: Record<string, unknown>[] } {
  const events = jsonLines(stdout);
  const texts = events.filter((event) => event.type === "text").map((event) => (event.part as { text?: string } | undefined)?.text ?? "");
  const errors = events.filter((event) => event.type === "error");
  const tools = events.filter((event) => event.type === "tool_use").map((event) => event.part as Record<string, unknown>);
  return { text: texts.length > 0 ? texts.at(-1)! : null, errors, events, tools };
}

// ---------------------------------------------------------------------------------------------
// Gemini CLI: `gemini -p <prompt> --output-format json`, pointed at the gateway by
// GOOGLE_GEMINI_BASE_URL with its API-key auth (the key in x-goog-api-key), settings in ~/.gemini

export interface GeminiOptions {
  baseUrl: string;
  key: string;
  prompt: string;
  model?: string;
  /** `--approval-mode yolo`: tools run without asking (headless runs cannot ask). */
  yolo?: boolean;
  timeoutMs?: number;
}

/** Its settings: no usage statistics, telemetry or update checks; the folder trusted. */
export const GEMINI_SETTINGS = {
  general: { disableAutoUpdate: true, disableUpdateNag: true },
  privacy: { usageStatisticsEnabled: false },
  telemetry: { enabled: false },
  security: { auth: { selectedType: "gemini-api-key" }, folderTrust: { enabled: false } },
};

export function geminiEnv(s: Scratch, options: Pick<GeminiOptions, "baseUrl" | "key">): Record<string, string> {
  return {
    ...baseEnv(s),
    GOOGLE_GEMINI_BASE_URL: options.baseUrl,
    GEMINI_API_KEY: options.key,
    GEMINI_CLI_NO_RELAUNCH: "true",
  };
}

export function runGemini(s: Scratch, options: GeminiOptions): Promise<RunResult> {
  const dir = join(s.home, ".gemini");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "settings.json"), JSON.stringify(GEMINI_SETTINGS));
  const args = ["-p", options.prompt, "--output-format", "json", "--skip-trust"];
  if (options.model) args.push("--model", options.model);
  if (options.yolo) args.push("--approval-mode", "yolo");
  return run(GEMINI, args, { cwd: s.work, env: geminiEnv(s, options), timeoutMs: options.timeoutMs });
}

/** The answer of a `--output-format json` run (`response`), and its error when it failed. */
export function geminiResult(stdout: string): { text: string | null; error: unknown; output: Record<string, unknown> | null } {
  const start = stdout.indexOf("{");
  let output: Record<string, unknown> | null = null;
  try {
    output = start === -1 ? null : (JSON.parse(stdout.slice(start)) as Record<string, unknown>);
  } catch {
    output = null;
  }
  return { text: typeof output?.response === "string" ? output.response : null, error: output?.error ?? (output === null ? "no JSON output" : null), output };
}
