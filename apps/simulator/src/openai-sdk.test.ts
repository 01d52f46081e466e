/** The official openai client against the simulator: chat completions, images, models. */
import { APIError } from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TINY_PNG_BASE64 } from './openai-images.ts';
import { startHarness, WEATHER_ARGS, WEATHER_SCHEMA, type Harness } from './test-helpers.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.sim.close());
beforeEach(() => {
  h.sim.stats.clear();
  h.sim.faults.clear();
});

const weatherTool = { type: 'function' as const, function: { name: 'get_weather', parameters: WEATHER_SCHEMA } };

describe('chat completions', () => {
  it('answers 12 deterministic words with usage', async () => {
    const messages = [{ role: 'user' as const, content: 'Say something nice' }];
    const a = await h.openai.chat.completions.create({ model: 'gpt-4o-mini', messages });
    const b = await h.openai.chat.completions.create({ model: 'gpt-4o-mini', messages });
    expect(a.id).toMatch(/^chatcmpl-/);
    expect(a.object).toBe('chat.completion');
    expect(a.model).toBe('gpt-4o-mini');
    const choice = a.choices[0]!;
    expect(choice.finish_reason).toBe('stop');
    expect(choice.message.role).toBe('assistant');
    expect(choice.message.content?.split(' ')).toHaveLength(12);
    expect(b.choices[0]!.message.content).toBe(choice.message.content);
    expect(a.usage).toMatchObject({ prompt_tokens: 5, completion_tokens: 12, total_tokens: 17, prompt_tokens_details: { cached_tokens: 0 } });
  });

  it('streams one word per chunk; usage chunk only with include_usage', async () => {
    const params = { model: 'gpt-4o', messages: [{ role: 'user' as const, content: 'stream please' }] };
    const plain = await h.openai.chat.completions.create(params);
    const stream = await h.openai.chat.completions.create({ ...params, stream: true, stream_options: { include_usage: true } });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks[0]!.choices[0]!.delta).toMatchObject({ role: 'assistant', content: '' });
    const words = chunks.slice(1, -2).map((c) => c.choices[0]!.delta.content);
    expect(words).toHaveLength(12);
    expect(words.join('')).toBe(plain.choices[0]!.message.content);
    expect(chunks.at(-2)!.choices[0]).toMatchObject({ delta: {}, finish_reason: 'stop' });
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage).toEqual(plain.usage);

    const noUsage = await h.openai.chat.completions.create({ ...params, stream: true });
    const noUsageChunks = [];
    for await (const chunk of noUsage) noUsageChunks.push(chunk);
    expect(noUsageChunks).toHaveLength(14);
    expect(noUsageChunks.every((c) => !('usage' in c))).toBe(true);
  });

  it('works with the stream helper and finalChatCompletion()', async () => {
    const runner = h.openai.chat.completions.stream({
      model: 'gpt-4o',
      messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'hello #sim:chunks=4 #sim:cached=3' }],
      stream_options: { include_usage: true },
    });
    const final = await runner.finalChatCompletion();
    expect(final.choices[0]!.message.content!.split(' ')).toHaveLength(4);
    expect(final.choices[0]!.finish_reason).toBe('stop');
    expect(final.usage).toMatchObject({ completion_tokens: 4, prompt_tokens_details: { cached_tokens: 3 } });
    expect(h.sim.stats.last!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('truncates at max_tokens with finish_reason length', async () => {
    const r = await h.openai.chat.completions.create({ model: 'm', max_completion_tokens: 5, messages: [{ role: 'user', content: 'long' }] });
    expect(r.choices[0]!.finish_reason).toBe('length');
    expect(r.choices[0]!.message.content!.split(' ')).toHaveLength(5);
    expect(r.usage!.completion_tokens).toBe(5);
    const legacy = await h.openai.chat.completions.create({ model: 'm', max_tokens: 2, messages: [{ role: 'user', content: 'long' }] });
    expect(legacy.usage!.completion_tokens).toBe(2);
  });

  it('stops before a stop word', async () => {
    const messages = [{ role: 'user' as const, content: 'stop test' }];
    const full = await h.openai.chat.completions.create({ model: 'm', messages });
    const words = full.choices[0]!.message.content!.split(' ');
    const stopWord = words[3]!;
    const expected = words.slice(0, words.indexOf(stopWord));
    const r = await h.openai.chat.completions.create({ model: 'm', messages, stop: [stopWord] });
    expect(r.choices[0]!.finish_reason).toBe('stop');
    expect(r.choices[0]!.message.content).toBe(expected.join(' '));
    expect(r.usage!.completion_tokens).toBe(expected.length);
  });

  it('calls the first tool with schema-built arguments, streamed in pieces', async () => {
    const params = { model: 'gpt-4o', messages: [{ role: 'user' as const, content: 'weather?' }], tools: [weatherTool] };
    const r = await h.openai.chat.completions.create(params);
    const call = r.choices[0]!.message.tool_calls![0]!;
    expect(r.choices[0]!.finish_reason).toBe('tool_calls');
    expect(call.type).toBe('function');
    expect(call.id).toMatch(/^call_/);
    if (call.type !== 'function') throw new Error('expected a function call');
    expect(call.function.name).toBe('get_weather');
    expect(JSON.parse(call.function.arguments)).toEqual(WEATHER_ARGS);

    const stream = await h.openai.chat.completions.create({ ...params, stream: true });
    const pieces: string[] = [];
    for await (const chunk of stream) {
      const args = chunk.choices[0]?.delta.tool_calls?.[0]?.function?.arguments;
      if (args) pieces.push(args);
    }
    expect(pieces.length).toBeGreaterThanOrEqual(2);
    expect(JSON.parse(pieces.join(''))).toEqual(WEATHER_ARGS);

    const final = await h.openai.chat.completions.stream(params).finalChatCompletion();
    expect(final.choices[0]!.finish_reason).toBe('tool_calls');
    const streamedCall = final.choices[0]!.message.tool_calls![0]!;
    if (streamedCall.type !== 'function') throw new Error('expected a function call');
    expect(JSON.parse(streamedCall.function.arguments)).toEqual(WEATHER_ARGS);
  });

  it('honours a forced tool and answers text after a tool result', async () => {
    const other = { type: 'function' as const, function: { name: 'other', parameters: { type: 'object', properties: {} } } };
    const forced = await h.openai.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'x' }],
      tools: [other, weatherTool],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
    });
    const call = forced.choices[0]!.message.tool_calls![0]!;
    expect(call.type === 'function' && call.function.name).toBe('get_weather');
    const after = await h.openai.chat.completions.create({
      model: 'm',
      tools: [weatherTool],
      messages: [
        { role: 'user', content: 'weather?' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
      ],
    });
    expect(after.choices[0]!.finish_reason).toBe('stop');
    expect(after.choices[0]!.message.content).toBeTruthy();
  });

  it('throws APIError with the injected status', async () => {
    const error = await h.openai.chat.completions
      .create({ model: 'm', messages: [{ role: 'user', content: 'hi #sim:fail=503' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(503);
    expect(h.sim.stats.last).toMatchObject({ outcome: 'failed', status: 503, usage: null });
  });
});

describe('images and models', () => {
  it('generates b64 PNGs and urls, counting images', async () => {
    const b64 = await h.openai.images.generate({ model: 'gpt-image-1', prompt: 'a cat', n: 2 });
    expect(b64.data).toHaveLength(2);
    expect(b64.data![0]!.b64_json).toBe(TINY_PNG_BASE64);
    expect(Buffer.from(b64.data![0]!.b64_json!, 'base64').subarray(1, 4).toString()).toBe('PNG');
    expect(b64.usage!.input_tokens).toBe(2);
    const url = await h.openai.images.generate({ model: 'dall-e-3', prompt: 'a dog', response_format: 'url' });
    const image = await fetch(url.data![0]!.url!);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(h.sim.stats.totals.images).toBe(3);
    expect(h.sim.stats.requests.map((r) => r.usage?.images)).toEqual([2, 1]);
  });

  it('lists models', async () => {
    const ids = [];
    for await (const model of h.openai.models.list()) ids.push(model.id);
    expect(ids).toContain('gpt-4o-mini');
    const one = await h.openai.models.retrieve('anything');
    expect(one).toMatchObject({ id: 'anything', object: 'model' });
  });
});
