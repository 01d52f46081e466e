/** `/v1/messages/count_tokens` and `/v1/embeddings` through the official SDKs. */
import { APIError } from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { embeddingVector } from './openai-embeddings.ts';
import { post, startHarness, WEATHER_SCHEMA, type Harness } from './test-helpers.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({}, 'sk-test');
});
afterAll(() => h.sim.close());
beforeEach(() => h.sim.stats.clear());

describe('messages count_tokens', () => {
  it('counts what /v1/messages reports as input, plus the tools; deterministic and growing with input', async () => {
    const params = { model: 'claude-x', system: 'be nice', messages: [{ role: 'user' as const, content: 'Hello there' }] };
    const counted = await h.anthropic.messages.countTokens(params);
    const message = await h.anthropic.messages.create({ ...params, max_tokens: 10 });
    expect(counted).toEqual({ input_tokens: message.usage.input_tokens });
    expect(counted.input_tokens).toBeGreaterThan(0);
    expect(await h.anthropic.messages.countTokens(params)).toEqual(counted);
    const longer = await h.anthropic.messages.countTokens({ ...params, messages: [{ role: 'user', content: 'Hello there '.repeat(50) }] });
    expect(longer.input_tokens).toBeGreaterThan(counted.input_tokens);
    const withTools = await h.anthropic.beta.messages.countTokens({ ...params, tools: [{ name: 'get_weather', input_schema: WEATHER_SCHEMA as { type: 'object' } }] });
    expect(withTools.input_tokens).toBeGreaterThan(counted.input_tokens);
    expect(h.sim.stats.last?.path).toBe('/v1/messages/count_tokens');
    expect(h.sim.stats.last?.provider).toBe('anthropic');
  });

  it('refuses a body /v1/messages refuses (bar max_tokens) with the Anthropic error body', async () => {
    const error = await h.anthropic.messages.countTokens({ model: 'claude-x', messages: [] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(400);
    expect((error as APIError).type).toBe('invalid_request_error');
    const raw = await post(`${h.sim.url}/v1/messages/count_tokens`, { model: 'claude-x', messages: [{ role: 'user', content: 'x' }] }, { 'x-api-key': 'sk-test' });
    expect(raw.status).toBe(400);
    expect(raw.text).toContain('anthropic-version');
  });

  it('takes directives and faults like /v1/messages', async () => {
    h.sim.faults.push({ match: { path: '/v1/messages/count_tokens' }, times: 1, behaviour: { failStatus: 529 } });
    const error = await h.anthropic.messages.countTokens({ model: 'claude-x', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect((error as APIError).status).toBe(529);
    expect(await h.anthropic.messages.countTokens({ model: 'claude-x', messages: [{ role: 'user', content: 'x' }] })).toEqual({ input_tokens: 1 });
  });
});

describe('embeddings', () => {
  it('answers deterministic unit vectors per input with usage; float and base64 decode to the same numbers', async () => {
    const floats = await h.openai.embeddings.create({ model: 'text-embedding-3-small', input: ['hello world', 'another text'], encoding_format: 'float' });
    expect(floats.object).toBe('list');
    expect(floats.model).toBe('text-embedding-3-small');
    expect(floats.data.map((d) => [d.object, d.index, d.embedding.length])).toEqual([['embedding', 0, 1536], ['embedding', 1, 1536]]);
    const norm = Math.sqrt(floats.data[0]!.embedding.reduce((sum, v) => sum + v * v, 0));
    expect(norm).toBeCloseTo(1, 4);
    expect(floats.usage).toEqual({ prompt_tokens: 3 + 3, total_tokens: 6 });
    expect(h.sim.stats.last?.usage).toEqual({ input_tokens: 6, output_tokens: 0, cached_tokens: 0, images: 0 });
    // The SDK asks for base64 by default and decodes it to floats.
    const decoded = await h.openai.embeddings.create({ model: 'text-embedding-3-small', input: ['hello world', 'another text'] });
    expect(JSON.parse(JSON.stringify(h.sim.stats.last?.body))).toMatchObject({ encoding_format: 'base64' });
    expect(decoded.data[0]!.embedding).toEqual(Array.from(embeddingVector('hello world', 1536)));
    expect(decoded.data[0]!.embedding).toEqual(floats.data[0]!.embedding);
    expect(decoded.data[1]!.embedding).not.toEqual(decoded.data[0]!.embedding);
  });

  it('honours dimensions, token arrays, and the large model', async () => {
    const small = await h.openai.embeddings.create({ model: 'text-embedding-3-small', input: 'x', dimensions: 8, encoding_format: 'float' });
    expect(small.data[0]!.embedding).toHaveLength(8);
    const tokens = await h.openai.embeddings.create({ model: 'text-embedding-3-large', input: [[1, 2, 3], [4, 5]], encoding_format: 'float' });
    expect(tokens.data.map((d) => d.embedding.length)).toEqual([3072, 3072]);
    expect(tokens.usage).toEqual({ prompt_tokens: 5, total_tokens: 5 });
  });

  it('refuses a bad input, format or dimensions with the OpenAI error body', async () => {
    for (const body of [{ model: 'm' }, { model: 'm', input: '' }, { model: 'm', input: [] }, { model: 'm', input: [1, 'a'] }, { model: 'm', input: 'x', encoding_format: 'int8' }, { model: 'm', input: 'x', dimensions: 0 }]) {
      const raw = await post(`${h.sim.url}/v1/embeddings`, body, { authorization: 'Bearer sk-test' });
      expect(raw.status, JSON.stringify(body)).toBe(400);
      expect(JSON.parse(raw.text).error.type).toBe('invalid_request_error');
    }
  });
});
