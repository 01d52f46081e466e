/** The official @anthropic-ai/sdk client against the simulator. */
import Anthropic, { APIError } from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { post, startHarness, WEATHER_ARGS, WEATHER_SCHEMA, type Harness } from './test-helpers.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.sim.close());
beforeEach(() => h.sim.stats.clear());

const weatherTool = { name: 'get_weather', input_schema: WEATHER_SCHEMA as Anthropic.Tool.InputSchema };

describe('messages', () => {
  it('answers with a message and usage', async () => {
    const m = await h.anthropic.messages.create({ model: 'claude-x', max_tokens: 100, system: 'be nice', messages: [{ role: 'user', content: 'Hello there' }] });
    expect(m.id).toMatch(/^msg_/);
    expect(m.type).toBe('message');
    expect(m.model).toBe('claude-x');
    expect(m.stop_reason).toBe('end_turn');
    const block = m.content[0]!;
    if (block.type !== 'text') throw new Error('expected text');
    expect(block.text.split(' ')).toHaveLength(12);
    expect(m.usage).toMatchObject({ input_tokens: 5, output_tokens: 12, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 });
  });

  it('streams the native events; stream and non-stream usage agree', async () => {
    const params = { model: 'claude-x', max_tokens: 100, messages: [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'stream it #sim:cached=4' }] }] };
    const plain = await h.anthropic.messages.create(params);
    const stream = await h.anthropic.messages.create({ ...params, stream: true });
    const events = [];
    for await (const event of stream) events.push(event);
    const types = events.map((e) => e.type);
    expect(types.slice(0, 2)).toEqual(['message_start', 'content_block_start']);
    expect(types.filter((t) => t === 'content_block_delta')).toHaveLength(12);
    expect(types.slice(-3)).toEqual(['content_block_stop', 'message_delta', 'message_stop']);
    const start = events[0]!;
    if (start.type !== 'message_start') throw new Error('expected message_start');
    expect(start.message.usage).toMatchObject({ input_tokens: plain.usage.input_tokens, cache_read_input_tokens: 4, output_tokens: 1 });
    const delta = events.at(-2)!;
    if (delta.type !== 'message_delta') throw new Error('expected message_delta');
    expect(delta.usage).toMatchObject({ output_tokens: 12, input_tokens: plain.usage.input_tokens, cache_read_input_tokens: 4 });

    const final = await h.anthropic.messages.stream(params).finalMessage();
    expect(final.content).toEqual(plain.content);
    expect(final.usage).toEqual(plain.usage);
    expect(final.stop_reason).toBe('end_turn');
  });

  it('stops at max_tokens and at stop sequences', async () => {
    const messages = [{ role: 'user' as const, content: 'stop here' }];
    const m = await h.anthropic.messages.create({ model: 'c', max_tokens: 4, messages });
    expect(m.stop_reason).toBe('max_tokens');
    expect(m.usage.output_tokens).toBe(4);
    const full = await h.anthropic.messages.create({ model: 'c', max_tokens: 100, messages });
    const words = (full.content[0] as Anthropic.TextBlock).text.split(' ');
    const stopWord = words[2]!;
    const s = await h.anthropic.messages.stream({ model: 'c', max_tokens: 100, messages, stop_sequences: [stopWord] }).finalMessage();
    expect(s.stop_reason).toBe('stop_sequence');
    expect(s.stop_sequence).toBe(stopWord);
    expect((s.content[0] as Anthropic.TextBlock).text).toBe(words.slice(0, words.indexOf(stopWord)).join(' '));
  });

  it('calls a tool (streamed as input_json_delta) and answers text after tool_result', async () => {
    const params = { model: 'c', max_tokens: 100, tools: [weatherTool], messages: [{ role: 'user' as const, content: 'weather?' }] };
    const m = await h.anthropic.messages.create(params);
    expect(m.stop_reason).toBe('tool_use');
    const use = m.content[0]!;
    if (use.type !== 'tool_use') throw new Error('expected tool_use');
    expect(use.id).toMatch(/^toolu_/);
    expect(use.input).toEqual(WEATHER_ARGS);

    const stream = await h.anthropic.messages.create({ ...params, stream: true });
    let pieces = 0;
    for await (const event of stream) if (event.type === 'content_block_delta' && event.delta.type === 'input_json_delta') pieces++;
    expect(pieces).toBeGreaterThanOrEqual(2);
    const final = await h.anthropic.messages.stream(params).finalMessage();
    expect(final.content[0]).toMatchObject({ type: 'tool_use', name: 'get_weather', input: WEATHER_ARGS });

    const after = await h.anthropic.messages.create({
      ...params,
      messages: [
        { role: 'user', content: 'weather?' },
        { role: 'assistant', content: [{ type: 'tool_use', id: use.id, name: use.name, input: use.input }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'sunny' }] },
      ],
    });
    expect(after.stop_reason).toBe('end_turn');
    expect(after.content[0]!.type).toBe('text');
  });

  it('uses Anthropic error bodies', async () => {
    const error = await h.anthropic.messages
      .create({ model: 'c', max_tokens: 10, messages: [{ role: 'user', content: 'x #sim:fail=529' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(529);
    expect((error as APIError).error).toMatchObject({ type: 'error', error: { type: 'overloaded_error' } });

    const noVersion = await post(`${h.sim.url}/v1/messages`, { model: 'c', max_tokens: 1, messages: [{ role: 'user', content: 'x' }] });
    expect(noVersion.status).toBe(400);
    expect(JSON.parse(noVersion.text)).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    const missingMax = await post(`${h.sim.url}/v1/messages`, { model: 'c', messages: [{ role: 'user', content: 'x' }] }, { 'anthropic-version': '2023-06-01' });
    expect(missingMax.status).toBe(400);
    expect(missingMax.text).toContain('max_tokens');
    const badJson = await post(`${h.sim.url}/v1/messages`, '{nope', { 'anthropic-version': '2023-06-01' });
    expect(badJson.status).toBe(400);
    expect(JSON.parse(badJson.text).error.type).toBe('invalid_request_error');
  });
});
