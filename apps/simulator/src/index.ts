/**
 * Simulated OpenAI + Anthropic + Gemini API provider for tests and the benchmark.
 *
 *   const sim = await startSimulator({ port: 0 });
 *   new OpenAI({ baseURL: `${sim.url}/v1`, apiKey: 'x' });
 *   new Anthropic({ baseURL: sim.url, apiKey: 'x' });
 *   new GoogleGenAI({ apiKey: 'x', httpOptions: { baseUrl: sim.url } });  // /v1 (3.x) or apiVersion 'v1beta'
 */
import { withDefaults } from './behaviour.ts';
import type { SimContext } from './context.ts';
import { FaultQueue } from './faults.ts';
import { CloudAccounts } from './cloud-accounts.ts';
export { CloudAccounts, SIM_AWS_ACCESS_KEY_ID, SIM_AWS_SECRET_ACCESS_KEY, SIM_GOOGLE_PROJECT } from './cloud-accounts.ts';
import { DEFAULT_GEMINI_MODELS, DEFAULT_MODELS } from './models.ts';
import { closeServer, createSimulatorServer, listen } from './server.ts';
import { SimulatorStats } from './stats.ts';
import type { Behaviour } from './types.ts';

export interface SimulatorOptions {
  /** Port to listen on; 0 (the default here) picks a free one. */
  port?: number;
  host?: string;
  /** When set, requests must carry it (`Authorization: Bearer`, or `x-api-key` on /v1/messages; `x-goog-api-key` / `?key=` / Bearer on the Gemini routes). */
  apiKey?: string | null;
  defaults?: Partial<Behaviour>;
  /** Model ids listed by GET /v1/models (any model name is served regardless). */
  models?: readonly string[];
  /** Model ids listed by the Gemini routes (`GET /v1beta/models`, Google's list form). Any model name is served regardless. */
  geminiModels?: readonly string[];
  /** Stats records kept (newest last). Default 1000. */
  maxRecords?: number;
  /**
   * Strict mode (default false): per model, refuse what the real provider refuses, with its error body
   * (a field the model does not take, output above its maximum, an unknown role, sampling under
   * `anthropic-version: 2026-10-21` for models without it; see strict.ts and model-capabilities.ts),
   * and call a tool only on a `#sim:tool=` directive or a tool_choice that forces one.
   */
  strict?: boolean;
}

export interface Simulator {
  /** `http://127.0.0.1:PORT` (OpenAI base URL is `${url}/v1`, Anthropic's is `url`). */
  url: string;
  port: number;
  stats: SimulatorStats;
  faults: FaultQueue;
  /** The AWS key pair (Bedrock's SigV4) and Google service account (Vertex's tokens) the simulator checks. */
  cloud: CloudAccounts;
  close(): Promise<void>;
}

export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const host = options.host ?? '127.0.0.1';
  let url = '';
  const ctx: SimContext = {
    stats: new SimulatorStats(options.maxRecords ?? 1000),
    faults: new FaultQueue(),
    defaults: withDefaults(options.defaults),
    apiKey: options.apiKey ?? null,
    models: options.models ?? DEFAULT_MODELS,
    geminiModels: options.geminiModels ?? DEFAULT_GEMINI_MODELS,
    strict: options.strict ?? false,
    cloud: new CloudAccounts(),
    baseUrl: () => url,
  };
  const server = createSimulatorServer(ctx);
  const port = await listen(server, options.port ?? 0, host);
  const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  url = `http://${urlHost}:${port}`;
  return { url, port, stats: ctx.stats, faults: ctx.faults, cloud: ctx.cloud, close: () => closeServer(server) };
}

export { SimulatorStats, type StatsTotals } from './stats.ts';
export { FaultQueue, type FaultInput, type FaultMatch } from './faults.ts';
export { redactSecret } from './context.ts';
export { decodeToolArgs, encodeToolArgs, parseDirectives, parseToolDirectives, type ToolDirective } from './directives.ts';
export { capabilitiesFor, NO_SAMPLING_ANTHROPIC_VERSION, type ModelCapabilities } from './model-capabilities.ts';
export { geminiStrictRefusal, strictRefusal } from './strict.ts';
export { DEFAULT_GEMINI_MODELS, DEFAULT_MODELS } from './models.ts';
export { generateWords, WORDS } from './text-generator.ts';
export { TINY_PNG_BASE64 } from './openai-images.ts';
export { DEFAULT_BEHAVIOUR, type Behaviour, type Outcome, type ReportedUsage, type StatsRecord } from './types.ts';
