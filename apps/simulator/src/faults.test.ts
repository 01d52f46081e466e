/** Faults: directives, the control-endpoint queue, and what the SDKs see. */
import { APIConnectionError, APIError } from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { post, startHarness, type Harness } from './test-helpers.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.sim.close());
beforeEach(() => {
  h.sim.stats.clear();
  h.sim.faults.clear();
});

const user = (content: string) => [{ role: 'user' as const, content }];

async function waitFor(check: () => boolean, ms = 2000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('directive faults', () => {
  it('reset: the SDK gets a connection error', async () => {
    const error = await h.openai.chat.completions.create({ model: 'm', messages: user('x #sim:reset') }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(h.sim.stats.last).toMatchObject({ outcome: 'reset', status: null });
  });

  it('cut_after: chat stream throws after N chunks, no [DONE]', async () => {
    const stream = await h.openai.chat.completions.create({ model: 'm', stream: true, messages: user('x #sim:cut_after=3') });
    const contents: string[] = [];
    const error = await (async () => {
      for await (const chunk of stream) {
        const c = chunk.choices[0]?.delta.content;
        if (c) contents.push(c);
      }
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(contents).toHaveLength(3);
    expect(h.sim.stats.last).toMatchObject({ outcome: 'cut', chunksSent: 3, usage: null });
  });

  it('cut_after: Anthropic finalMessage rejects; Responses has no terminal event', async () => {
    const anthropicError = await h.anthropic.messages
      .stream({ model: 'c', max_tokens: 50, messages: user('x #sim:cut_after=2') })
      .finalMessage()
      .catch((e: unknown) => e);
    expect(anthropicError).toBeInstanceOf(Error);

    const types: string[] = [];
    const stream = await h.openai.responses.create({ model: 'm', input: 'x #sim:cut_after=1', stream: true });
    await (async () => {
      for await (const event of stream) types.push(event.type);
    })().catch(() => undefined);
    expect(types.filter((t) => t === 'response.output_text.delta')).toHaveLength(1);
    expect(types).not.toContain('response.completed');
  });

  it('cut_after on a non-streaming request cuts the body short', async () => {
    const error = await h.openai.chat.completions.create({ model: 'm', messages: user('x #sim:cut_after=0') }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(h.sim.stats.last!.outcome).toBe('cut');
  });

  it('hang: the client times out; recorded as hang', async () => {
    const error = await h.openai.chat.completions.create({ model: 'm', messages: user('x #sim:hang') }, { timeout: 150 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(h.sim.stats.last!.outcome).toBe('hang');
  });

  it('latency and chunk delay slow the answer down', async () => {
    const started = Date.now();
    await h.openai.chat.completions.create({ model: 'm', messages: user('x #sim:latency_ms=60') });
    expect(Date.now() - started).toBeGreaterThanOrEqual(55);
    const t0 = Date.now();
    const stream = await h.openai.chat.completions.create({ model: 'm', stream: true, messages: user('x #sim:chunks=4 #sim:chunk_delay_ms=20') });
    let n = 0;
    for await (const chunk of stream) if (chunk.choices[0]?.delta.content) n++;
    expect(n).toBe(4);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(75);
  });

  it('fail with retry_after sets the retry-after header', async () => {
    const r = await post(`${h.sim.url}/v1/chat/completions`, { model: 'm', messages: user('x #sim:fail=429 #sim:retry_after=7') });
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBe('7');
    expect(JSON.parse(r.text)).toMatchObject({ error: { type: 'rate_limit_error', code: 'rate_limit_exceeded', param: null } });
  });

  it('records aborted when the client goes away mid-stream', async () => {
    const controller = new AbortController();
    const stream = await h.openai.chat.completions.create(
      { model: 'm', stream: true, messages: user('x #sim:chunks=50 #sim:chunk_delay_ms=10') },
      { signal: controller.signal },
    );
    await (async () => {
      let n = 0;
      for await (const chunk of stream) if (chunk.choices[0]?.delta.content && ++n === 2) controller.abort();
    })().catch(() => undefined);
    await waitFor(() => h.sim.stats.last?.outcome === 'aborted');
    expect(h.sim.stats.last!.chunksSent).toBeLessThan(50);
  });
});

describe('fault queue', () => {
  it('applies queued faults to the next matching requests, then removes them', async () => {
    const queued = await post(`${h.sim.url}/_sim/faults`, {
      faults: [
        { match: { model: 'flaky' }, times: 2, behaviour: { failStatus: 500 } },
        { match: { path: '/v1/messages' }, behaviour: { fail_status: 503 } },
      ],
    });
    expect(queued.status).toBe(200);
    const ok = await h.openai.chat.completions.create({ model: 'steady', messages: user('x') });
    expect(ok.choices[0]!.finish_reason).toBe('stop');
    for (let i = 0; i < 2; i++) {
      const e = await h.openai.chat.completions.create({ model: 'flaky', messages: user('x') }).catch((err: unknown) => err);
      expect((e as APIError).status).toBe(500);
    }
    const third = await h.openai.chat.completions.create({ model: 'flaky', messages: user('x') });
    expect(third.model).toBe('flaky');
    const anthropicError = await h.anthropic.messages.create({ model: 'c', max_tokens: 5, messages: user('x') }).catch((e: unknown) => e);
    expect((anthropicError as APIError).status).toBe(503);
    expect(h.sim.faults.size).toBe(0);
    expect(h.sim.stats.requests.map((r) => r.behaviourSource)).toEqual(['default', 'fault', 'fault', 'default', 'fault']);
  });

  it('fail_message sets the error body\'s message, in the provider\'s own shape', async () => {
    const message = 'Quota exceeded for org-Abc123 (acct_42)';
    const set = await post(`${h.sim.url}/_sim/faults`, { faults: [{ match: { model: 'leaky' }, behaviour: { fail_status: 429, fail_message: message } }] });
    expect(set.status).toBe(200);
    const error = await h.openai.chat.completions.create({ model: 'leaky', messages: user('x') }, { maxRetries: 0 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    expect(error).toMatchObject({ status: 429, error: { message } });
  });

  it('directives win over the queue (which is left untouched)', async () => {
    h.sim.faults.push({ behaviour: { failStatus: 500 } });
    const r = await h.openai.chat.completions.create({ model: 'm', messages: user('x #sim:chunks=2') });
    expect(r.usage!.completion_tokens).toBe(2);
    expect(h.sim.faults.size).toBe(1);
  });

  it('rejects an invalid fault body and clears with DELETE', async () => {
    const bad = await post(`${h.sim.url}/_sim/faults`, { faults: [{ behaviour: { failStatus: 200 } }] });
    expect(bad.status).toBe(400);
    h.sim.faults.push({ behaviour: { reset: true } }, { match: { stream: true }, behaviour: { cutAfter: 1 } });
    const del = await fetch(`${h.sim.url}/_sim/faults`, { method: 'DELETE' });
    expect(del.status).toBe(200);
    expect(h.sim.faults.size).toBe(0);
  });
});
