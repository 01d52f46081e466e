/** The standalone entry point: env validation, start-up log line, health, clean SIGTERM exit. */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** Each test starts a Node process from the TypeScript source: seconds, not milliseconds, on a busy machine. */
const PROCESS_TEST_TIMEOUT_MS = 30_000;

const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));

function run(env: Record<string, string>) {
  return spawn(process.execPath, [MAIN], { env: { PATH: process.env['PATH'] ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
}

describe('main', () => {
  it('exits 1 naming the invalid variable', async () => {
    const child = run({ SIMULATOR_CHUNK_DELAY_MS: 'soon' });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const [code] = await once(child, 'exit');
    expect(code).toBe(1);
    expect(stderr).toContain('SIMULATOR_CHUNK_DELAY_MS');
  }, PROCESS_TEST_TIMEOUT_MS);

  it('logs one JSON line, serves health and auth, exits 0 on SIGTERM', async () => {
    const child = run({ SIMULATOR_PORT: '0', SIMULATOR_API_KEY: 'sk-main', SIMULATOR_CHUNKS: '3' });
    const [line] = (await once(child.stdout, 'data')) as [Buffer];
    const started = JSON.parse(line.toString().split('\n')[0]!) as { url: string; msg: string };
    expect(started.msg).toBe('simulator listening');
    expect(await (await fetch(`${started.url}/readyz`)).json()).toEqual({ status: 'ok' });
    const body = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
    const denied = await fetch(`${started.url}/v1/chat/completions`, { method: 'POST', body });
    expect(denied.status).toBe(401);
    const ok = await fetch(`${started.url}/v1/chat/completions`, { method: 'POST', body, headers: { authorization: 'Bearer sk-main' } });
    expect(((await ok.json()) as { usage: { completion_tokens: number } }).usage.completion_tokens).toBe(3);
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
  }, PROCESS_TEST_TIMEOUT_MS);

  it('SIMULATOR_STRICT=1 starts strict mode', async () => {
    const child = run({ SIMULATOR_PORT: '0', SIMULATOR_STRICT: '1' });
    const [line] = (await once(child.stdout, 'data')) as [Buffer];
    const started = JSON.parse(line.toString().split('\n')[0]!) as { url: string; strict: boolean };
    expect(started.strict).toBe(true);
    const body = JSON.stringify({ model: 'gpt-4o-mini-2024-07-18', messages: [{ role: 'user', content: 'x' }], reasoning_effort: 'high' });
    const refused = await fetch(`${started.url}/v1/chat/completions`, { method: 'POST', body });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { param: string } }).error.param).toBe('reasoning_effort');
    child.kill('SIGTERM');
    await once(child, 'exit');
  }, PROCESS_TEST_TIMEOUT_MS);
});
