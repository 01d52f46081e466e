/** Standalone simulator: `node src/main.ts` (configured by SIMULATOR_* environment variables). */
import { parseEnv } from './env.ts';
import { startSimulator } from './index.ts';

function log(level: 'info' | 'error', msg: string, fields: Record<string, unknown> = {}): void {
  const line = JSON.stringify({ level, time: new Date().toISOString(), service: 'simulator', msg, ...fields });
  (level === 'error' ? process.stderr : process.stdout).write(`${line}\n`);
}

const parsed = parseEnv(process.env);
if (!parsed.ok) {
  log('error', parsed.message);
  process.exit(1);
}
const env = parsed.env;

try {
  const simulator = await startSimulator({
    port: env.SIMULATOR_PORT,
    host: env.SIMULATOR_HOST,
    apiKey: env.SIMULATOR_API_KEY ?? null,
    defaults: { latencyMs: env.SIMULATOR_LATENCY_MS, chunkDelayMs: env.SIMULATOR_CHUNK_DELAY_MS, chunks: env.SIMULATOR_CHUNKS },
    strict: env.SIMULATOR_STRICT,
  });
  log('info', 'simulator listening', {
    url: simulator.url,
    port: simulator.port,
    host: env.SIMULATOR_HOST,
    auth: env.SIMULATOR_API_KEY !== undefined,
    latency_ms: env.SIMULATOR_LATENCY_MS,
    chunk_delay_ms: env.SIMULATOR_CHUNK_DELAY_MS,
    chunks: env.SIMULATOR_CHUNKS,
    strict: env.SIMULATOR_STRICT,
  });
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    log('info', 'simulator stopping', { signal });
    simulator.close().then(
      () => process.exit(0),
      () => process.exit(0),
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
} catch (error) {
  log('error', 'simulator failed to start', { error: error instanceof Error ? error.message : String(error) });
  process.exit(1);
}
