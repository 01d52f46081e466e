/** The official openai client's Responses API against the simulator. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, WEATHER_ARGS, WEATHER_SCHEMA, type Harness } from './test-helpers.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.sim.close());
beforeEach(() => h.sim.stats.clear());

const weatherTool = { type: 'function' as const, name: 'get_weather', parameters: WEATHER_SCHEMA, strict: false };

describe('responses', () => {
  it('answers a string input with usage', async () => {
    const r = await h.openai.responses.create({ model: 'gpt-4o', input: 'Tell me a story', instructions: 'be nice' });
    expect(r.id).toMatch(/^resp_/);
    expect(r.object).toBe('response');
    expect(r.status).toBe('completed');
    expect(r.model).toBe('gpt-4o');
    expect(r.output_text.split(' ')).toHaveLength(12);
    expect(r.output[0]).toMatchObject({ type: 'message', role: 'assistant', status: 'completed' });
    expect(r.usage).toMatchObject({ input_tokens: 6, output_tokens: 12, total_tokens: 18, input_tokens_details: { cached_tokens: 0 } });
  });

  it('streams the full event sequence with increasing sequence numbers', async () => {
    const params = { model: 'gpt-4o', input: [{ role: 'user' as const, content: 'stream me #sim:cached=2' }] };
    const plain = await h.openai.responses.create(params);
    const stream = await h.openai.responses.create({ ...params, stream: true });
    const events = [];
    for await (const event of stream) events.push(event);
    const types = events.map((e) => e.type);
    expect(types.slice(0, 4)).toEqual(['response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added']);
    expect(types.filter((t) => t === 'response.output_text.delta')).toHaveLength(12);
    expect(types.slice(-4)).toEqual(['response.output_text.done', 'response.content_part.done', 'response.output_item.done', 'response.completed']);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const completed = events.at(-1)!;
    if (completed.type !== 'response.completed') throw new Error('expected response.completed');
    expect(completed.response.usage).toEqual(plain.usage);
    expect(completed.response.usage!.input_tokens_details.cached_tokens).toBe(2);

    const final = await h.openai.responses.stream(params).finalResponse();
    expect(final.output_text).toBe(plain.output_text);
    expect(final.usage).toEqual(plain.usage);
  });

  it('reports incomplete at max_output_tokens', async () => {
    const r = await h.openai.responses.create({ model: 'm', input: 'long one', max_output_tokens: 3 });
    expect(r.status).toBe('incomplete');
    expect(r.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(r.usage!.output_tokens).toBe(3);
    const stream = await h.openai.responses.create({ model: 'm', input: 'long one', max_output_tokens: 3, stream: true });
    const types = [];
    for await (const event of stream) types.push(event.type);
    expect(types.at(-1)).toBe('response.incomplete');
  });

  it('calls a function tool, then answers text after function_call_output', async () => {
    const r = await h.openai.responses.create({ model: 'm', input: 'weather?', tools: [weatherTool] });
    const call = r.output[0]!;
    if (call.type !== 'function_call') throw new Error(`expected function_call, got ${call.type}`);
    expect(call.name).toBe('get_weather');
    expect(JSON.parse(call.arguments)).toEqual(WEATHER_ARGS);

    const stream = await h.openai.responses.create({ model: 'm', input: 'weather?', tools: [weatherTool], stream: true });
    const deltas: string[] = [];
    for await (const event of stream) if (event.type === 'response.function_call_arguments.delta') deltas.push(event.delta);
    expect(deltas.length).toBeGreaterThanOrEqual(2);
    expect(JSON.parse(deltas.join(''))).toEqual(WEATHER_ARGS);

    const final = await h.openai.responses.stream({ model: 'm', input: 'weather?', tools: [weatherTool] }).finalResponse();
    expect(final.output[0]).toMatchObject({ type: 'function_call', name: 'get_weather' });

    const after = await h.openai.responses.create({
      model: 'm',
      tools: [weatherTool],
      input: [
        { role: 'user', content: 'weather?' },
        { type: 'function_call', call_id: call.call_id, name: call.name, arguments: call.arguments },
        { type: 'function_call_output', call_id: call.call_id, output: 'sunny' },
      ],
    });
    expect(after.output[0]!.type).toBe('message');
    expect(after.output_text.length).toBeGreaterThan(0);
  });
});
