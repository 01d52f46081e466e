import { afterAll, beforeAll, beforeEach, expect } from "vitest";
import { ApiError, GoogleGenAI } from "@google/genai";
import { parseGatewayFile } from "@gateway/config";
import { applyGatewayFile } from "@gateway/control-plane";
import { startStack, gatewayYamlEditor, type Stack } from "./stack.ts";

/**
 * The test gateway file plus a Gemini-shape upstream (the simulator's `/v1beta`) and the models the
 * Gemini tests call: `gemini-test` (Gemini 2.5 upstream), `gemini3-test` (Gemini 3: function calls
 * carry ids and thought signatures), and the OpenAI- and Anthropic-shape `gpt-test` and `claude-test`.
 */
export function geminiGatewayYaml(simulatorUrl: string): string {
  const { replaceOnce, text } = gatewayYamlEditor(simulatorUrl);
  replaceOnce(
    "upstreams:\n",
    `upstreams:\n  - { name: sim-gemini, shape: gemini, base_url: "${simulatorUrl}/v1beta", secret_env: TEST_SIMULATOR_KEY, timeouts: { connect_ms: 1000, first_byte_ms: 1500, response_ms: 2500 } }\n`,
  );
  replaceOnce(
    "models:\n",
    `models:
  - name: gemini-test
    prices: { input: "0.30", output: "2.50", cached_input: "0.03" }
    capabilities: { max_output_tokens: 65536, thinking_style: budget, can_disable_thinking: true }
    targets: [ { upstream: sim-gemini, model: gemini-2.5-flash } ]
  - name: gemini3-test
    prices: { input: "2.00", output: "12.00", cached_input: "0.20" }
    capabilities: { max_output_tokens: 65536 }
    targets: [ { upstream: sim-gemini, model: gemini-3.1-pro-preview } ]
  - name: gemini-embedding-test
    prices: { input: "0.15" }
    capabilities: { max_output_tokens: 0 }
    targets: [ { upstream: sim-gemini, model: gemini-embedding-001 } ]
`,
  );
  replaceOnce(
    "server_options:\n",
    `server_options:
  - { name: gemini, models: [gemini-test, gemini3-test, gemini-embedding-test, gpt-test, claude-test] }
  - { name: gemini-limited, models: [gemini-test], rate_limits: { rpm: 1 } }
`,
  );
  return text();
}

export interface GeminiStack {
  stack: Stack;
  key: string;
  keyId: string;
}

export async function startGeminiStack(): Promise<GeminiStack> {
  const stack = await startStack();
  await applyGatewayFile(stack.controlPlane.db.prisma, stack.controlPlane.records, parseGatewayFile(geminiGatewayYaml(stack.simulator.url)));
  const minted = await stack.mintKey({ serverOption: "gemini" });
  // The re-applied file reaches the proxy through its routing refresh.
  const deadline = Date.now() + 5_000;
  for (;;) {
    const response = await fetch(`${stack.proxy.url}/v1beta/models/gemini-test`, { headers: { "x-goog-api-key": minted.key } });
    if (response.status === 200 || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { stack, key: minted.key, keyId: minted.id };
}

/**
 * Registers one Gemini stack for the calling test file: started before its tests, closed after,
 * the simulator's faults and records cleared before each. Read the fields inside tests.
 */
export function useGeminiStack(): { stack: Stack; key: string; ai: GoogleGenAI } {
  const suite = {} as { stack: Stack; key: string; ai: GoogleGenAI };
  beforeAll(async () => {
    ({ stack: suite.stack, key: suite.key } = await startGeminiStack());
    suite.ai = genai(suite.stack, suite.key);
  });
  afterAll(async () => suite.stack?.close());
  beforeEach(() => {
    suite.stack.simulator.faults.clear();
    suite.stack.simulator.stats.clear();
  });
  return suite;
}

/** `@google/genai` pointed at the gateway: `/v1` by default (the SDK's 3.x), `v1beta` as Gemini CLI calls it. */
export function genai(stack: Stack, apiKey: string, apiVersion?: string): GoogleGenAI {
  return new GoogleGenAI({ apiKey, vertexai: false, httpOptions: { baseUrl: stack.proxy.url, ...(apiVersion ? { apiVersion } : {}) } });
}

export async function rejection(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => {
      throw new Error("expected an error");
    },
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

/** Google's envelope inside an ApiError's message (a stream's error event: after "got status: ...". ). */
export function envelope(error: ApiError): { code: number; message: string; status: string; details?: Array<Record<string, unknown>> } {
  return (JSON.parse(error.message.slice(error.message.indexOf("{"))) as { error: { code: number; message: string; status: string; details?: Array<Record<string, unknown>> } }).error;
}
