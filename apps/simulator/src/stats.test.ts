/** Stats records, the control endpoints, auth, health and unknown routes. */
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { redactSecret, type StatsRecord } from './index.ts';
import { post, startHarness, type Harness } from './test-helpers.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ apiKey: 'sk-sim-secret', maxRecords: 5 }, 'sk-sim-secret');
});
afterAll(() => h.sim.close());
beforeEach(() => h.sim.stats.clear());

describe('stats', () => {
  it('records the request as received, with redacted secrets and reported usage', async () => {
    await h.openai.chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'hello' }],
      // @ts-expect-error an unknown field must reach the upstream unchanged
      extra_field: { keep: [1, 2] },
    });
    const record = h.sim.stats.last!;
    expect(record).toMatchObject({
      id: expect.stringMatching(/^simreq_\d+$/),
      method: 'POST',
      path: '/v1/chat/completions',
      provider: 'openai',
      model: 'gpt-4o',
      stream: false,
      authorized: true,
      outcome: 'ok',
      status: 200,
      usage: { input_tokens: 2, output_tokens: 12, cached_tokens: 0, images: 0 },
      chunksSent: 0,
    });
    expect(record.body).toMatchObject({ extra_field: { keep: [1, 2] } });
    expect(record.headers['authorization']).toBe(`Bearer ${redactSecret('sk-sim-secret')}`);
    expect(JSON.stringify(record)).not.toContain('sk-sim-secret');

    const json = (await (await fetch(`${h.sim.url}/_sim/stats`)).json()) as { totals: Record<string, number>; requests: StatsRecord[] };
    expect(json.requests).toHaveLength(1);
    expect(json.totals).toMatchObject({ requests: 1, ok: 1, output_tokens: 12 });
    expect((await fetch(`${h.sim.url}/_sim/stats`, { method: 'DELETE' })).status).toBe(200);
    expect(h.sim.stats.requests).toHaveLength(0);
  });

  it('counts streamed chunks and keeps only the newest records', async () => {
    for (let i = 0; i < 7; i++) {
      const stream = await h.anthropic.messages.create({ model: `c${i}`, max_tokens: 50, stream: true, messages: [{ role: 'user', content: 'x #sim:chunks=3' }] });
      for await (const _ of stream);
    }
    expect(h.sim.stats.requests.map((r) => r.model)).toEqual(['c2', 'c3', 'c4', 'c5', 'c6']);
    expect(h.sim.stats.last).toMatchObject({ provider: 'anthropic', stream: true, chunksSent: 3, usage: { output_tokens: 3 } });
    expect(h.sim.stats.totals).toMatchObject({ requests: 7, ok: 7, output_tokens: 21 });
  });
});

describe('auth and routing', () => {
  it('rejects a wrong key with each provider error body', async () => {
    const bad = new OpenAI({ apiKey: 'sk-wrong', baseURL: `${h.sim.url}/v1`, maxRetries: 0 });
    const error = await bad.models.list().catch((e: unknown) => e);
    expect((error as { status: number }).status).toBe(401);
    expect(h.sim.stats.last).toMatchObject({ authorized: false, outcome: 'failed', status: 401 });
    const anthropic401 = await post(`${h.sim.url}/v1/messages`, {}, { 'x-api-key': 'nope', 'anthropic-version': '2023-06-01' });
    expect(JSON.parse(anthropic401.text)).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
    const viaXApiKey = await post(
      `${h.sim.url}/v1/messages`,
      { model: 'c', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] },
      { 'x-api-key': 'sk-sim-secret', 'anthropic-version': '2023-06-01' },
    );
    expect(viaXApiKey.status).toBe(200);
    expect(h.sim.stats.last!.headers['x-api-key']).toBe(redactSecret('sk-sim-secret'));
  });

  it('serves health and 404s unknown paths in the provider format', async () => {
    for (const path of ['/healthz', '/readyz']) {
      const r = await fetch(`${h.sim.url}${path}`);
      expect(await r.json()).toEqual({ status: 'ok' });
    }
    const unknown = await post(`${h.sim.url}/v1/nope`, {}, { authorization: 'Bearer sk-sim-secret' });
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.text)).toMatchObject({ error: { type: 'invalid_request_error', code: 'unknown_url' } });
    const badJson = await post(`${h.sim.url}/v1/chat/completions`, '{', { authorization: 'Bearer sk-sim-secret' });
    expect(badJson.status).toBe(400);
    expect(JSON.parse(badJson.text).error.type).toBe('invalid_request_error');
  });
});
