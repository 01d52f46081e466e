/** The per-model capability table and the strict refusals built on it (pure functions). */
import { describe, expect, it } from 'vitest';
import { capabilitiesFor } from './model-capabilities.ts';
import { makePlan, type GenInput, type ToolSpec } from './plan.ts';
import { strictRefusal } from './strict.ts';

describe('model capabilities', () => {
  it('knows the gateway files\' upstream ids, dated or not', () => {
    expect(capabilitiesFor('gpt-4o-mini-2024-07-18')).toMatchObject({ family: 'openai', maxOutputTokens: 16_384, reasoning: false });
    expect(capabilitiesFor('gpt-4o-mini')).toMatchObject({ maxOutputTokens: 16_384, reasoning: false });
    expect(capabilitiesFor('gpt-4o-2024-08-06')).toMatchObject({ maxOutputTokens: 16_384, reasoning: false });
    expect(capabilitiesFor('gpt-5')).toMatchObject({ reasoning: true });
    expect(capabilitiesFor('o4-mini-2025-04-16')).toMatchObject({ reasoning: true });
    expect(capabilitiesFor('claude-sonnet-4-5-20250929')).toEqual({
      family: 'anthropic', maxOutputTokens: 64_000, reasoning: true, sampling: true, samplingExclusive: true, midConversationSystem: false,
    });
    expect(capabilitiesFor('claude-haiku-4-5-20251001')).toMatchObject({ maxOutputTokens: 64_000, samplingExclusive: true, midConversationSystem: false });
    expect(capabilitiesFor('claude-sonnet-4-5')).toMatchObject({ maxOutputTokens: 64_000 });
    expect(capabilitiesFor('claude-opus-4-1-20250805')).toMatchObject({ maxOutputTokens: 32_000, samplingExclusive: false });
    expect(capabilitiesFor('claude-opus-4-20250514')).toMatchObject({ maxOutputTokens: 32_000 });
    expect(capabilitiesFor('claude-sonnet-4-20250514')).toMatchObject({ maxOutputTokens: 64_000, samplingExclusive: false, midConversationSystem: false });
    expect(capabilitiesFor('claude-sonnet-4-8')).toMatchObject({ sampling: true, midConversationSystem: true });
    for (const name of ['claude-opus-5-5', 'claude-sonnet-5-5', 'claude-haiku-5-5', 'claude-sonnet-5-5-20261001']) {
      expect(capabilitiesFor(name)).toMatchObject({ maxOutputTokens: 128_000, reasoning: true, sampling: false, midConversationSystem: true });
    }
    expect(capabilitiesFor('claude-3-5-haiku-20241022')).toMatchObject({ maxOutputTokens: 8_192, reasoning: false });
    expect(capabilitiesFor('claude-3-7-sonnet-20250219')).toMatchObject({ reasoning: true });
  });

  it('does not know other models', () => {
    for (const name of ['m', 'c', 'claude-x', 'claude-test', 'gpt-image-1', 'text-embedding-3-small', '']) {
      expect(capabilitiesFor(name)).toBeNull();
    }
  });
});

const user = { role: 'user', content: 'hi' };

describe('strict refusals', () => {
  it('OpenAI chat: reasoning, output bound, roles', () => {
    expect(strictRefusal('/v1/chat/completions', { model: 'gpt-4o-mini-2024-07-18', messages: [user], reasoning_effort: 'high' })).toMatchObject({
      status: 400, param: 'reasoning_effort', code: 'unsupported_parameter',
    });
    expect(strictRefusal('/v1/chat/completions', { model: 'gpt-5', messages: [user], reasoning_effort: 'high' })).toBeNull();
    expect(strictRefusal('/v1/chat/completions', { model: 'o3-2025-04-16', messages: [user], max_tokens: 100 })).toMatchObject({ param: 'max_tokens', code: 'unsupported_parameter' });
    expect(strictRefusal('/v1/chat/completions', { model: 'o3-2025-04-16', messages: [user], max_completion_tokens: 100 })).toBeNull();
    expect(strictRefusal('/v1/chat/completions', { model: 'gpt-4o-mini', messages: [user], max_completion_tokens: 32_000 })).toMatchObject({
      status: 400, param: 'max_completion_tokens', message: expect.stringContaining('at most 16384'),
    });
    expect(strictRefusal('/v1/chat/completions', { model: 'gpt-4o', messages: [user], max_tokens: 16_385 })).toMatchObject({ param: 'max_tokens' });
    expect(strictRefusal('/v1/chat/completions', { model: 'gpt-4o', messages: [user], max_tokens: 16_384 })).toBeNull();
    expect(strictRefusal('/v1/chat/completions', { model: 'gpt-4o', messages: [user, { role: 'critic', content: 'x' }] })).toMatchObject({
      param: 'messages[1].role', code: 'invalid_value',
    });
    for (const role of ['system', 'developer', 'user', 'assistant', 'tool', 'function']) {
      expect(strictRefusal('/v1/chat/completions', { model: 'gpt-4o', messages: [{ role, content: 'x' }] })).toBeNull();
    }
    // An unknown model: only the model-independent rules.
    expect(strictRefusal('/v1/chat/completions', { model: 'm', messages: [user], reasoning_effort: 'high', max_tokens: 10_000_000 })).toBeNull();
  });

  it('OpenAI Responses: reasoning.effort, max_output_tokens, roles', () => {
    expect(strictRefusal('/v1/responses', { model: 'gpt-4o-mini', input: 'x', reasoning: { effort: 'low' } })).toMatchObject({ param: 'reasoning.effort' });
    expect(strictRefusal('/v1/responses', { model: 'gpt-4o-mini', input: 'x', reasoning: { effort: null } })).toBeNull();
    expect(strictRefusal('/v1/responses', { model: 'gpt-4o-mini', input: 'x', max_output_tokens: 20_000 })).toMatchObject({ param: 'max_output_tokens', code: 'integer_above_max_value' });
    expect(strictRefusal('/v1/responses', { model: 'gpt-4o', input: [{ role: 'tool', content: 'x' }] })).toMatchObject({ param: 'input[0].role' });
    expect(strictRefusal('/v1/responses', { model: 'gpt-4o', input: [{ type: 'function_call_output', call_id: 'c', output: 'x' }, { role: 'developer', content: 'x' }] })).toBeNull();
  });

  it('Anthropic: max_tokens, thinking, sampling by version, temperature with top_p', () => {
    const base = { messages: [user] };
    const v = (version: string) => ({ 'anthropic-version': version });
    expect(strictRefusal('/v1/messages', { ...base, model: 'claude-sonnet-4-5-20250929', max_tokens: 64_001 })?.message).toBe(
      'max_tokens: 64001 > 64000, which is the maximum allowed number of output tokens for claude-sonnet-4-5-20250929',
    );
    expect(strictRefusal('/v1/messages', { ...base, model: 'claude-sonnet-4-5-20250929', max_tokens: 64_000 })).toBeNull();
    expect(strictRefusal('/v1/messages', { ...base, model: 'claude-opus-4-1', max_tokens: 32_001 })).toMatchObject({ status: 400 });
    expect(strictRefusal('/v1/messages', { ...base, model: 'claude-opus-5-5', max_tokens: 128_000 })).toBeNull();
    expect(strictRefusal('/v1/messages', { ...base, model: 'claude-3-5-haiku-20241022', max_tokens: 10, thinking: { type: 'enabled', budget_tokens: 1024 } })?.message).toContain('thinking');
    expect(strictRefusal('/v1/messages', { ...base, model: 'claude-3-5-haiku-20241022', max_tokens: 10, thinking: { type: 'disabled' } })).toBeNull();
    expect(strictRefusal('/v1/messages', { ...base, model: 'claude-haiku-4-5', max_tokens: 10, thinking: { type: 'enabled', budget_tokens: 1024 } })).toBeNull();

    const sampled = { ...base, model: 'claude-sonnet-5-5', max_tokens: 10, top_k: 5 };
    expect(strictRefusal('/v1/messages', sampled, v('2026-10-21'))?.message).toContain('top_k');
    expect(strictRefusal('/v1/messages', sampled, v('2023-06-01'))).toBeNull();
    expect(strictRefusal('/v1/messages', { ...sampled, model: 'claude-sonnet-4-5' }, v('2026-10-21'))).toBeNull();
    const both = { ...base, model: 'claude-haiku-4-5-20251001', max_tokens: 10, temperature: 0.5, top_p: 0.9 };
    expect(strictRefusal('/v1/messages', both, v('2023-06-01'))?.message).toContain('cannot both be specified');
    expect(strictRefusal('/v1/messages', { ...both, model: 'claude-opus-4-1' }, v('2023-06-01'))).toBeNull();
    expect(strictRefusal('/v1/messages', { ...both, top_p: null }, v('2023-06-01'))).toBeNull();
    expect(strictRefusal('/v1/messages', { ...base, model: 'claude-x', max_tokens: 1_000_000, temperature: 1, top_p: 1 }, v('2026-10-21'))).toBeNull();
  });
});

describe('tools only on request', () => {
  const tools: ToolSpec[] = [{ name: 'Bash', schema: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] } }, { name: 'Read', schema: {} }];
  const input: GenInput = {
    model: 'm', stream: false, lastUserText: 'hello', inputChars: 5, maxTokens: null, stop: [], tools, toolChoice: { mode: 'auto' }, lastIsToolResult: false,
  };
  const parts = { cached: 0, cacheWrite: 0, cacheWrite1h: 0, webSearch: 0, reasoning: 0 };

  it('outside strict mode, the first tool as before; in strict mode, none without a directive', () => {
    expect(makePlan(input, 3, parts).toolCall).toMatchObject({ name: 'Bash', arguments: '{"command":"test"}' });
    expect(makePlan(input, 3, parts, { strict: true }).toolCall).toBeNull();
    expect(makePlan({ ...input, toolChoice: { mode: 'required' } }, 3, parts, { strict: true }).toolCall).toMatchObject({ name: 'Bash' });
    expect(makePlan({ ...input, toolChoice: { mode: 'named', name: 'Read' } }, 3, parts, { strict: true }).toolCall).toMatchObject({ name: 'Read' });
    expect(makePlan({ ...input, toolChoice: { mode: 'required' }, lastIsToolResult: true }, 3, parts, { strict: true }).toolCall).toBeNull();
  });

  it('a directive calls the tool it names, with its arguments, once per round', () => {
    for (const strict of [false, true]) {
      const directives = [{ name: 'Read', args: { file_path: '/etc/hosts' } }];
      expect(makePlan(input, 3, parts, { strict, toolDirectives: directives }).toolCall).toMatchObject({ name: 'Read', arguments: '{"file_path":"/etc/hosts"}' });
      expect(makePlan({ ...input, toolRounds: 1, lastIsToolResult: true }, 3, parts, { strict, toolDirectives: directives }).toolCall).toBeNull();
      expect(makePlan(input, 3, parts, { strict, toolDirectives: [{ name: 'Write', args: null }] }).toolCall).toBeNull();
      expect(makePlan({ ...input, toolChoice: { mode: 'none' } }, 3, parts, { strict, toolDirectives: directives }).toolCall).toBeNull();
      const sequence = [{ name: 'Bash', args: null }, { name: 'Read', args: null }];
      expect(makePlan({ ...input, toolRounds: 1, lastIsToolResult: true }, 3, parts, { strict, toolDirectives: sequence }).toolCall).toMatchObject({ name: 'Read', arguments: '{}' });
      expect(makePlan({ ...input, toolRounds: 2, lastIsToolResult: true }, 3, parts, { strict, toolDirectives: sequence }).toolCall).toBeNull();
    }
  });

  it('namespace and custom tools are called by directive only', () => {
    const extra: ToolSpec[] = [{ name: 'spawn', schema: {}, namespace: 'agents' }, { name: 'apply_patch', schema: undefined, kind: 'custom' }];
    const only = { ...input, tools: extra };
    expect(makePlan(only, 3, parts).toolCall).toBeNull();
    expect(makePlan(only, 3, parts, { toolDirectives: [{ name: 'agents__spawn', args: null }] }).toolCall).toMatchObject({ name: 'spawn', namespace: 'agents', kind: 'function' });
    expect(makePlan(only, 3, parts, { toolDirectives: [{ name: 'apply_patch', args: { input: '*** Begin Patch' } }] }).toolCall).toMatchObject({
      name: 'apply_patch', kind: 'custom', arguments: '*** Begin Patch',
    });
  });
});
