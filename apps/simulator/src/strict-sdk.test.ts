/**
 * Strict mode and tools on request, through the official `openai` and `@anthropic-ai/sdk` clients:
 * a refusal surfaces as the provider's own error class with status 400, a `#sim:tool=` directive
 * round-trips in every shape, and the Anthropic web search server tool answers with its blocks.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI, { APIError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeToolArgs } from './directives.ts';
import { post, startHarness, WEATHER_ARGS, WEATHER_SCHEMA, type Harness } from './test-helpers.ts';

let strict: Harness;
let loose: Harness;
beforeAll(async () => {
  strict = await startHarness({ strict: true });
  loose = await startHarness();
});
afterAll(async () => {
  await strict.sim.close();
  await loose.sim.close();
});

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a refusal');
    },
    (error: unknown) => error,
  );
}

const ARGS = { city: 'Lisbon', days: 3, metric: false, note: 'ünïcødé "quoted" 🌦' };
const chatTools = [
  { type: 'function' as const, function: { name: 'get_time', parameters: { type: 'object', properties: {} } } },
  { type: 'function' as const, function: { name: 'get_weather', parameters: WEATHER_SCHEMA } },
];
const directive = `What is the weather? #sim:tool=get_weather #sim:tool_args=${encodeToolArgs(ARGS)}`;

describe('strict refusals through the SDKs', () => {
  it('openai chat: reasoning_effort and max_completion_tokens to gpt-4o-mini are a BadRequestError', async () => {
    const reasoning = await rejection(
      strict.openai.chat.completions.create({ model: 'gpt-4o-mini-2024-07-18', messages: [{ role: 'user', content: 'hi' }], reasoning_effort: 'high' }),
    );
    expect(reasoning).toBeInstanceOf(OpenAI.BadRequestError);
    const error = reasoning as InstanceType<typeof OpenAI.BadRequestError>;
    expect(error.status).toBe(400);
    expect(error.param).toBe('reasoning_effort');
    expect(error.code).toBe('unsupported_parameter');
    expect(error.type).toBe('invalid_request_error');

    const tooLong = await rejection(
      strict.openai.chat.completions.create({ model: 'gpt-4o-mini-2024-07-18', messages: [{ role: 'user', content: 'hi' }], max_completion_tokens: 32_000, stream: true }),
    );
    expect(tooLong).toBeInstanceOf(OpenAI.BadRequestError);
    expect((tooLong as APIError).param).toBe('max_completion_tokens');

    // Not strict: accepted as before.
    const fine = await loose.openai.chat.completions.create({ model: 'gpt-4o-mini-2024-07-18', messages: [{ role: 'user', content: 'hi' }], reasoning_effort: 'high', max_completion_tokens: 32_000 });
    expect(fine.choices[0]!.finish_reason).toBe('stop');
    expect(strict.sim.stats.last?.status).toBe(400);
  });

  it('openai responses: reasoning.effort to gpt-4o is a BadRequestError', async () => {
    const error = await rejection(strict.openai.responses.create({ model: 'gpt-4o', input: 'hi', reasoning: { effort: 'medium' } }));
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as APIError).status).toBe(400);
    expect((error as APIError).param).toBe('reasoning.effort');
    const ok = await strict.openai.responses.create({ model: 'gpt-5', input: 'hi', reasoning: { effort: 'medium' } });
    expect(ok.status).toBe('completed');
  });

  it('anthropic: max_tokens above the model maximum, thinking, sampling and roles are a BadRequestError', async () => {
    // The SDK's types no longer carry sampling fields (its default anthropic-version is 2026-10-21): cast.
    const cases: Array<[Record<string, unknown>, string, Record<string, string>?]> = [
      [{ model: 'claude-sonnet-4-5-20250929', max_tokens: 64_001, messages: [{ role: 'user', content: 'hi' }] }, 'max_tokens: 64001 > 64000'],
      [{ model: 'claude-3-5-haiku-20241022', max_tokens: 2000, thinking: { type: 'enabled', budget_tokens: 1024 }, messages: [{ role: 'user', content: 'hi' }] }, 'thinking'],
      [{ model: 'claude-haiku-4-5-20251001', max_tokens: 10, temperature: 0.2, top_p: 0.5, messages: [{ role: 'user', content: 'hi' }] }, 'cannot both be specified'],
      [{ model: 'claude-opus-5-5', max_tokens: 10, temperature: 0.2, messages: [{ role: 'user', content: 'hi' }] }, 'temperature'],
      [{ model: 'claude-fable-5-2', max_tokens: 10, top_k: 3, messages: [{ role: 'user', content: 'hi' }] }, 'top_k', { 'anthropic-version': '2026-10-21' }],
      [{ model: 'claude-opus-4-5-20251101', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }, { role: 'system', content: 'be brief' }] }, "messages.1.role: Input should be 'user' or 'assistant'"],
    ];
    for (const [params, message, headers] of cases) {
      const error = await rejection(strict.anthropic.messages.create(params as unknown as Anthropic.MessageCreateParamsNonStreaming, headers ? { headers } : {}));
      expect(error).toBeInstanceOf(Anthropic.BadRequestError);
      const e = error as InstanceType<typeof Anthropic.BadRequestError>;
      expect(e.status).toBe(400);
      expect(e.error).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: expect.stringContaining(message) } });
    }
    // Under an earlier anthropic-version, a 5.x model takes sampling as before.
    const sampled = await strict.anthropic.messages.create(
      { model: 'claude-opus-5-5', max_tokens: 10, temperature: 0.2, messages: [{ role: 'user', content: 'hi' }] } as Anthropic.MessageCreateParamsNonStreaming,
      { headers: { 'anthropic-version': '2023-06-01' } },
    );
    expect(sampled.stop_reason).toBe('max_tokens');
    expect(strict.sim.stats.last?.headers['anthropic-version']).toBe('2023-06-01');
  });

  it('anthropic: a mid-conversation system message passes for models that take it, in both modes', async () => {
    const messages: Anthropic.MessageCreateParams['messages'] = [
      { role: 'user', content: 'hi' },
      { role: 'system', content: 'the user prefers short answers' },
      { role: 'user', content: 'again' },
    ];
    for (const h of [strict, loose]) {
      const m = await h.anthropic.messages.create({ model: 'claude-sonnet-5-5', max_tokens: 100, messages });
      expect(m.stop_reason).toBe('end_turn');
      const count = await h.anthropic.messages.countTokens({ model: 'claude-sonnet-5-5', messages });
      expect(count.input_tokens).toBeGreaterThan(0);
    }
    const old = await rejection(loose.anthropic.messages.create({ model: 'claude-haiku-4-5', max_tokens: 100, messages }));
    expect(old).toBeInstanceOf(Anthropic.BadRequestError);
  });

  it('an unknown model is accepted as before, and a raw body carries the provider envelope', async () => {
    const fine = await strict.anthropic.messages.create({ model: 'claude-x', max_tokens: 1_000_000, temperature: 1, top_p: 1, messages: [{ role: 'user', content: 'hi' }] } as Anthropic.MessageCreateParamsNonStreaming);
    expect(fine.stop_reason).toBe('end_turn');
    const raw = await post(`${strict.sim.url}/v1/chat/completions`, { model: 'gpt-4o', messages: [{ role: 'critic', content: 'x' }] });
    expect(raw.status).toBe(400);
    expect(JSON.parse(raw.text)).toEqual({
      error: {
        message: "Invalid value: 'critic'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.",
        type: 'invalid_request_error',
        param: 'messages[0].role',
        code: 'invalid_value',
      },
    });
  });
});

describe('tools on request', () => {
  it('strict: no tool call unless asked; a forced tool_choice still calls', async () => {
    const plain = await strict.openai.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hello' }], tools: chatTools });
    expect(plain.choices[0]!.finish_reason).toBe('stop');
    expect(plain.choices[0]!.message.tool_calls).toBeUndefined();
    const forced = await strict.openai.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hello' }], tools: chatTools, tool_choice: 'required' });
    expect(forced.choices[0]!.message.tool_calls?.[0]).toMatchObject({ function: { name: 'get_time' } });
    const anthropic = await strict.anthropic.messages.create({
      model: 'claude-haiku-4-5', max_tokens: 100, messages: [{ role: 'user', content: 'hello' }],
      tools: [{ name: 'get_weather', input_schema: WEATHER_SCHEMA as Anthropic.Tool.InputSchema }],
    });
    expect(anthropic.stop_reason).toBe('end_turn');
    const any = await strict.anthropic.messages.create({
      model: 'claude-haiku-4-5', max_tokens: 100, messages: [{ role: 'user', content: 'hello' }], tool_choice: { type: 'any' },
      tools: [{ name: 'get_weather', input_schema: WEATHER_SCHEMA as Anthropic.Tool.InputSchema }],
    });
    expect(any.content[0]).toMatchObject({ type: 'tool_use', name: 'get_weather', input: WEATHER_ARGS });
  });

  it('chat: the named tool with the given arguments, streamed and not, then text after the result', async () => {
    for (const h of [strict, loose]) {
      const params = { model: 'gpt-4o', messages: [{ role: 'user' as const, content: directive }], tools: chatTools };
      const body = await h.openai.chat.completions.create(params);
      const call = body.choices[0]!.message.tool_calls?.[0];
      expect(body.choices[0]!.finish_reason).toBe('tool_calls');
      if (call?.type !== 'function') throw new Error('expected a function call');
      expect(call.function.name).toBe('get_weather');
      expect(JSON.parse(call.function.arguments)).toEqual(ARGS);
      const streamed = await h.openai.chat.completions.stream(params).finalChatCompletion();
      const streamedCall = streamed.choices[0]!.message.tool_calls?.[0];
      if (streamedCall?.type !== 'function') throw new Error('expected a function call');
      expect(JSON.parse(streamedCall.function.arguments)).toEqual(ARGS);
      const after = await h.openai.chat.completions.create({
        ...params,
        messages: [...params.messages, { role: 'assistant', content: null, tool_calls: [call] }, { role: 'tool', tool_call_id: call.id, content: 'sunny' }],
      });
      expect(after.choices[0]!.finish_reason).toBe('stop');
    }
    // A tool the request does not offer: no call.
    const missing = await strict.openai.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x #sim:tool=Write' }], tools: chatTools });
    expect(missing.choices[0]!.finish_reason).toBe('stop');
  });

  it('responses: function, custom (freeform) and namespace tools by directive, streamed and not', async () => {
    const tools = [
      { type: 'function' as const, name: 'get_weather', parameters: WEATHER_SCHEMA, strict: false },
      { type: 'custom' as const, name: 'apply_patch', description: 'edit files' },
      { type: 'namespace' as const, name: 'agents', description: 'sub-agents', tools: [{ type: 'function' as const, name: 'spawn', parameters: { type: 'object', properties: { task: { type: 'string' } }, required: ['task'] } }] },
    ] as unknown as OpenAI.Responses.Tool[];
    const patch = '*** Begin Patch\n*** Add File: hello.txt\n+hi\n*** End Patch';
    const asks: Array<[string, (item: OpenAI.Responses.ResponseOutputItem) => void]> = [
      [directive, (item) => expect(item).toMatchObject({ type: 'function_call', name: 'get_weather', arguments: JSON.stringify(ARGS) })],
      [`patch it #sim:tool=apply_patch #sim:tool_args=${encodeToolArgs({ input: patch })}`, (item) => expect(item).toMatchObject({ type: 'custom_tool_call', name: 'apply_patch', input: patch })],
      ['delegate #sim:tool=agents__spawn', (item) => expect(item).toMatchObject({ type: 'function_call', name: 'spawn', namespace: 'agents', arguments: '{"task":"test"}' })],
    ];
    for (const [text, check] of asks) {
      const params = { model: 'gpt-4o', input: [{ role: 'user' as const, content: text }], tools };
      const body = await strict.openai.responses.create(params);
      expect(body.output).toHaveLength(1);
      check(body.output[0]!);
      const events: string[] = [];
      const stream = strict.openai.responses.stream(params);
      stream.on('event', (event) => events.push(event.type));
      const final = await stream.finalResponse();
      check(final.output[0]!);
      expect(events.at(-1)).toBe('response.completed');
      const item = body.output[0] as { type: string; call_id: string };
      const after = await strict.openai.responses.create({
        ...params,
        input: [...params.input, item as OpenAI.Responses.ResponseInputItem, { type: item.type === 'custom_tool_call' ? 'custom_tool_call_output' : 'function_call_output', call_id: item.call_id, output: 'done' } as OpenAI.Responses.ResponseInputItem],
      });
      expect(after.output[0]).toMatchObject({ type: 'message' });
    }
    // Outside strict mode without a directive: the first plain function tool, as before.
    const legacy = await loose.openai.responses.create({ model: 'gpt-4o', input: 'hi', tools: [tools[1]!, tools[2]!, tools[0]!] });
    expect(legacy.output[0]).toMatchObject({ type: 'function_call', name: 'get_weather' });
  });

  it('messages: the named tool with the given arguments, streamed and not, then text after the result', async () => {
    const tools: Anthropic.Tool[] = [
      { name: 'Bash', input_schema: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] } },
      { name: 'get_weather', input_schema: WEATHER_SCHEMA as Anthropic.Tool.InputSchema },
    ];
    const params = { model: 'claude-haiku-4-5-20251001', max_tokens: 1000, tools, messages: [{ role: 'user' as const, content: [{ type: 'text' as const, text: directive }] }] };
    const m = await strict.anthropic.messages.create(params);
    expect(m.stop_reason).toBe('tool_use');
    expect(m.content).toEqual([{ type: 'tool_use', id: expect.stringMatching(/^toolu_/), name: 'get_weather', input: ARGS, caller: { type: 'direct' } }]);
    const final = await strict.anthropic.messages.stream(params).finalMessage();
    expect(final.content[0]).toMatchObject({ type: 'tool_use', name: 'get_weather', input: ARGS });
    const use = m.content[0] as Anthropic.ToolUseBlock;
    const after = await strict.anthropic.messages.create({
      ...params,
      messages: [
        ...params.messages,
        { role: 'assistant', content: [{ type: 'tool_use', id: use.id, name: use.name, input: use.input }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'sunny' }] },
      ],
    });
    expect(after.stop_reason).toBe('end_turn');
  });
});

describe('anthropic web search server tool', () => {
  const webSearch = { type: 'web_search_20250305' as const, name: 'web_search' as const, max_uses: 5 };

  it('answers server_tool_use + web_search_tool_result blocks, then text, with the search count', async () => {
    const params = { model: 'claude-opus-4-5', max_tokens: 1000, tools: [webSearch], messages: [{ role: 'user' as const, content: 'news? #sim:web_search=2' }] };
    const m = await strict.anthropic.messages.create(params);
    expect(m.content.map((b) => b.type)).toEqual(['server_tool_use', 'web_search_tool_result', 'server_tool_use', 'web_search_tool_result', 'text']);
    const use = m.content[0] as Anthropic.ServerToolUseBlock;
    expect(use).toMatchObject({ name: 'web_search', id: expect.stringMatching(/^srvtoolu_/), input: { query: expect.any(String) } });
    const result = m.content[1] as Anthropic.WebSearchToolResultBlock;
    expect(result.tool_use_id).toBe(use.id);
    expect(result.content).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'web_search_result', url: expect.stringMatching(/^https:\/\//), encrypted_content: expect.any(String) })]));
    expect(m.usage.server_tool_use).toEqual({ web_search_requests: 2, web_fetch_requests: 0 });
    expect(m.stop_reason).toBe('end_turn');

    const stream = strict.anthropic.messages.stream(params);
    const starts: string[] = [];
    stream.on('streamEvent', (event) => {
      if (event.type === 'content_block_start') starts.push(event.content_block.type);
    });
    const final = await stream.finalMessage();
    expect(starts).toEqual(['server_tool_use', 'web_search_tool_result', 'server_tool_use', 'web_search_tool_result', 'text']);
    expect(final.content.map((b) => b.type)).toEqual(m.content.map((b) => b.type));
    expect((final.content[0] as Anthropic.ServerToolUseBlock).input).toEqual(use.input);
    expect(final.usage.server_tool_use).toEqual({ web_search_requests: 2, web_fetch_requests: 0 });
  });

  it('without the tool offered, the count is reported with no blocks (as before)', async () => {
    const m = await loose.anthropic.messages.create({ model: 'c', max_tokens: 100, messages: [{ role: 'user', content: 'news? #sim:web_search=2' }] });
    expect(m.content.map((b) => b.type)).toEqual(['text']);
    expect(m.usage.server_tool_use).toEqual({ web_search_requests: 2, web_fetch_requests: 0 });
  });
});
