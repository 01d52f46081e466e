/** Anthropic `POST /v1/messages`: request parsing, `message` body and the named-event stream. */
import type { ErrorSpec } from './errors.ts';
import { newId } from './ids.ts';
import type { GenInput, GenerationShape, Plan, ToolChoice, ToolSpec } from './plan.ts';
import { eventFrame, type Frame } from './sse.ts';
import { capabilitiesFor } from './model-capabilities.ts';
import { generateWords } from './text-generator.ts';
import { asObject, countAfter, lastUserMessage, stopList, textChars } from './text-extract.ts';

function parseTools(value: unknown): ToolSpec[] {
  if (!Array.isArray(value)) return [];
  const tools: ToolSpec[] = [];
  for (const tool of value) {
    const t = asObject(tool);
    if (!t || typeof t['name'] !== 'string') continue;
    if (t['type'] !== undefined && t['type'] !== null && t['type'] !== 'custom') continue; // server tools
    tools.push({ name: t['name'], schema: t['input_schema'] });
  }
  return tools;
}

/** The name of an offered web search server tool (`web_search_20250305`, ...), or null. */
function webSearchTool(value: unknown): string | null {
  if (!Array.isArray(value)) return null;
  for (const tool of value) {
    const t = asObject(tool);
    if (typeof t?.['type'] === 'string' && t['type'].startsWith('web_search_') && typeof t['name'] === 'string') return t['name'];
  }
  return null;
}

/**
 * The roles `messages` may hold: user and assistant, plus system for models that take
 * mid-conversation system messages (Claude 4.8+ and 5.x). The index of the first other role, or -1.
 */
export function badRoleIndex(messages: readonly unknown[], model: string): number {
  const system = capabilitiesFor(model)?.midConversationSystem === true;
  return messages.findIndex((m) => {
    const role = asObject(m)?.['role'];
    return role !== 'user' && role !== 'assistant' && !(system && role === 'system');
  });
}

export function badRoleMessage(index: number): string {
  return `messages.${index}.role: Input should be 'user' or 'assistant'`;
}

function parseToolChoice(value: unknown): ToolChoice {
  const choice = asObject(value);
  if (choice?.['type'] === 'none') return { mode: 'none' };
  if (choice?.['type'] === 'any') return { mode: 'required' };
  if (choice?.['type'] === 'tool' && typeof choice['name'] === 'string') return { mode: 'named', name: choice['name'] };
  return { mode: 'auto' };
}

function isToolResultMessage(message: unknown): boolean {
  const m = asObject(message);
  const content = m?.['content'];
  return m?.['role'] === 'user' && Array.isArray(content) && content.some((block) => asObject(block)?.['type'] === 'tool_result');
}

function stopReason(plan: Plan): string {
  switch (plan.finish) {
    case 'tool_call': return 'tool_use';
    case 'length': return 'max_tokens';
    case 'stop_sequence': return 'stop_sequence';
    default: return 'end_turn';
  }
}

/** input_tokens excludes cache reads and writes; the writes are split by lifetime in cache_creation. */
function cacheFields(plan: Plan): object {
  const writes = plan.cacheWriteTokens + plan.cacheWrite1hTokens;
  return {
    input_tokens: plan.inputTokens - plan.cachedTokens - writes,
    cache_creation_input_tokens: writes,
    cache_read_input_tokens: plan.cachedTokens,
    cache_creation: { ephemeral_5m_input_tokens: plan.cacheWriteTokens, ephemeral_1h_input_tokens: plan.cacheWrite1hTokens },
  };
}

function serverToolUse(plan: Plan): object | null {
  return plan.webSearchRequests > 0 ? { web_search_requests: plan.webSearchRequests, web_fetch_requests: 0 } : null;
}

function usage(plan: Plan, outputTokens: number): object {
  return {
    ...cacheFields(plan),
    output_tokens: outputTokens,
    service_tier: 'standard',
    server_tool_use: serverToolUse(plan),
    inference_geo: null,
  };
}

/** A `message` object; `final` false gives the `message_start` form (no stop reason yet). */
function message(id: string, model: string, content: object[], plan: Plan, final: boolean, outputTokens: number): object {
  return {
    id,
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: final ? stopReason(plan) : null,
    stop_sequence: final ? plan.stopSequence : null,
    stop_details: null,
    container: null,
    usage: usage(plan, outputTokens),
  };
}

interface SearchBlocks {
  use: { type: 'server_tool_use'; id: string; name: string; input: { query: string }; caller: { type: 'direct' } };
  result: { type: 'web_search_tool_result'; tool_use_id: string; content: object[]; caller: { type: 'direct' } };
}

/** One `server_tool_use` + `web_search_tool_result` pair per planned search, as Anthropic sends them. */
function searchBlocks(plan: Plan, input: GenInput): SearchBlocks[] {
  const name = input.webSearchTool;
  if (!name) return [];
  return plan.webSearches.map((search) => {
    const id = newId('srvtoolu_');
    return {
      use: { type: 'server_tool_use', id, name, input: { query: search.query }, caller: { type: 'direct' } },
      result: {
        type: 'web_search_tool_result',
        tool_use_id: id,
        content: search.results.map((r) => ({
          type: 'web_search_result',
          url: r.url,
          title: r.title,
          encrypted_content: Buffer.from(generateWords(r.url, 8).join(' ')).toString('base64'),
          page_age: r.pageAge,
        })),
        caller: { type: 'direct' },
      },
    };
  });
}

export const anthropicMessages: GenerationShape = {
  parse(body): GenInput | ErrorSpec {
    const invalid = (message: string): ErrorSpec => ({ status: 400, message });
    if (typeof body['model'] !== 'string' || body['model'].length === 0) return invalid('model: Field required');
    const maxTokens = body['max_tokens'];
    if (maxTokens === undefined) return invalid('max_tokens: Field required');
    if (typeof maxTokens !== 'number' || !Number.isInteger(maxTokens) || maxTokens < 1) {
      return invalid('max_tokens: Input should be a valid integer greater than or equal to 1');
    }
    const messages = body['messages'];
    if (!Array.isArray(messages)) return invalid('messages: Field required');
    if (messages.length === 0) return invalid('messages: at least one message is required');
    const badRole = badRoleIndex(messages, body['model']);
    if (badRole >= 0) return invalid(badRoleMessage(badRole));
    const system = body['system'];
    const user = lastUserMessage(messages);
    return {
      model: body['model'],
      stream: body['stream'] === true,
      lastUserText: user.text,
      inputChars: textChars(messages) + textChars(system ?? ''),
      maxTokens,
      stop: stopList(body['stop_sequences']),
      tools: parseTools(body['tools']),
      toolChoice: parseToolChoice(body['tool_choice']),
      lastIsToolResult: isToolResultMessage(messages.at(-1)),
      toolRounds: countAfter(messages, user.index, (m) => m['role'] === 'assistant' && Array.isArray(m['content']) && m['content'].some((block) => asObject(block)?.['type'] === 'tool_use')),
      webSearchTool: webSearchTool(body['tools']),
    };
  },

  body(plan, input) {
    const toolCall = plan.toolCall;
    const block = toolCall
      ? { type: 'tool_use', id: newId('toolu_'), name: toolCall.name, input: JSON.parse(toolCall.arguments) as unknown, caller: { type: 'direct' } }
      : { type: 'text', text: plan.text };
    const searches = searchBlocks(plan, input);
    return message(newId('msg_'), input.model, [...searches.flatMap((s) => [s.use, s.result]), block], plan, true, plan.outputTokens);
  },

  frames(plan, input) {
    const frames: Frame[] = [];
    const emit = (type: string, fields: object, content = false): void => {
      frames.push(eventFrame(type, { type, ...fields }, content));
    };
    emit('message_start', { message: message(newId('msg_'), input.model, [], plan, false, 1) });
    let index = 0;
    for (const search of searchBlocks(plan, input)) {
      const { input: query, ...use } = search.use;
      emit('content_block_start', { index, content_block: { ...use, input: {} } });
      if (index === 0) emit('ping', {});
      emit('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(query) } });
      emit('content_block_stop', { index });
      index++;
      emit('content_block_start', { index, content_block: search.result });
      emit('content_block_stop', { index });
      index++;
    }
    const first = index === 0;
    const toolCall = plan.toolCall;
    if (toolCall) {
      emit('content_block_start', { index, content_block: { type: 'tool_use', id: newId('toolu_'), name: toolCall.name, input: {}, caller: { type: 'direct' } } });
      if (first) emit('ping', {});
      for (const piece of toolCall.pieces) emit('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } }, true);
    } else {
      emit('content_block_start', { index, content_block: { type: 'text', text: '' } });
      if (first) emit('ping', {});
      for (const piece of plan.pieces) emit('content_block_delta', { index, delta: { type: 'text_delta', text: piece } }, true);
    }
    emit('content_block_stop', { index });
    emit('message_delta', {
      delta: { stop_reason: stopReason(plan), stop_sequence: plan.stopSequence, stop_details: null, container: null },
      usage: { ...cacheFields(plan), output_tokens: plan.outputTokens, server_tool_use: serverToolUse(plan) },
    });
    emit('message_stop', {});
    return frames;
  },
};
