/** OpenAI `POST /v1/responses`: request parsing, `response` body and `response.*` event stream. */
import type { ErrorSpec } from './errors.ts';
import { newId, nowSeconds } from './ids.ts';
import type { GenInput, GenerationShape, Plan, ToolChoice, ToolSpec } from './plan.ts';
import { eventFrame, type Frame } from './sse.ts';
import { asObject, contentText, countAfter, intOrNull, textChars } from './text-extract.ts';

/** Function and custom (freeform) tools, and the function/custom tools inside `namespace` tools. */
function parseTools(value: unknown): ToolSpec[] {
  if (!Array.isArray(value)) return [];
  const tools: ToolSpec[] = [];
  const add = (t: Record<string, unknown> | null, namespace: string | undefined): void => {
    if (!t || typeof t['name'] !== 'string') return;
    const ns = namespace === undefined ? {} : { namespace };
    if (t['type'] === 'function') tools.push({ name: t['name'], schema: t['parameters'], ...ns });
    else if (t['type'] === 'custom') tools.push({ name: t['name'], schema: undefined, kind: 'custom', ...ns });
  };
  for (const tool of value) {
    const t = asObject(tool);
    if (t?.['type'] === 'namespace' && typeof t['name'] === 'string' && Array.isArray(t['tools'])) {
      for (const inner of t['tools']) add(asObject(inner), t['name']);
    } else {
      add(t, undefined);
    }
  }
  return tools;
}

function parseToolChoice(value: unknown): ToolChoice {
  if (value === 'none') return { mode: 'none' };
  if (value === 'required') return { mode: 'required' };
  const choice = asObject(value);
  if ((choice?.['type'] === 'function' || choice?.['type'] === 'custom') && typeof choice['name'] === 'string') return { mode: 'named', name: choice['name'] };
  return { mode: 'auto' };
}

function lastUserInput(input: unknown): { text: string; index: number } {
  if (typeof input === 'string') return { text: input, index: -1 };
  if (!Array.isArray(input)) return { text: '', index: -1 };
  for (let i = input.length - 1; i >= 0; i--) {
    const item = asObject(input[i]);
    if (item?.['role'] !== 'user' || (item['type'] !== undefined && item['type'] !== 'message')) continue;
    const text = contentText(item['content']);
    if (text.length > 0) return { text, index: i };
  }
  return { text: '', index: -1 };
}

function usage(plan: Plan): object {
  return {
    input_tokens: plan.inputTokens,
    input_tokens_details: { cached_tokens: plan.cachedTokens, cache_write_tokens: plan.cacheWriteTokens + plan.cacheWrite1hTokens },
    output_tokens: plan.outputTokens,
    output_tokens_details: { reasoning_tokens: plan.reasoningTokens },
    total_tokens: plan.inputTokens + plan.outputTokens,
  };
}

type Status = 'in_progress' | 'completed' | 'incomplete';

function responseObject(id: string, createdAt: number, input: GenInput, request: Record<string, unknown>, status: Status, output: object[], plan: Plan | null): object {
  const incomplete = status === 'incomplete';
  return {
    id,
    object: 'response',
    created_at: createdAt,
    status,
    access_programs: null,
    background: false,
    completed_at: status === 'completed' ? nowSeconds() : null,
    error: null,
    incomplete_details: incomplete ? { reason: 'max_output_tokens' } : null,
    instructions: request['instructions'] ?? null,
    max_output_tokens: request['max_output_tokens'] ?? null,
    max_tool_calls: request['max_tool_calls'] ?? null,
    model: input.model,
    output,
    parallel_tool_calls: request['parallel_tool_calls'] ?? true,
    previous_response_id: request['previous_response_id'] ?? null,
    prompt_cache_key: request['prompt_cache_key'] ?? null,
    reasoning: request['reasoning'] ?? { effort: null, summary: null },
    safety_identifier: null,
    service_tier: 'default',
    store: request['store'] ?? true,
    temperature: request['temperature'] ?? 1,
    text: request['text'] ?? { format: { type: 'text' }, verbosity: 'medium' },
    tool_choice: request['tool_choice'] ?? 'auto',
    tools: request['tools'] ?? [],
    top_logprobs: request['top_logprobs'] ?? 0,
    top_p: request['top_p'] ?? 1,
    truncation: request['truncation'] ?? 'disabled',
    usage: plan ? usage(plan) : null,
    user: null,
    metadata: request['metadata'] ?? {},
  };
}

interface Items {
  itemId: string;
  callId: string;
}

function finalItem(plan: Plan, ids: Items): object {
  const call = plan.toolCall;
  if (call) {
    const namespace = call.namespace === null ? {} : { namespace: call.namespace };
    if (call.kind === 'custom') {
      return { id: ids.itemId, type: 'custom_tool_call', status: 'completed', call_id: ids.callId, input: call.arguments, name: call.name, ...namespace };
    }
    return { id: ids.itemId, type: 'function_call', status: 'completed', arguments: call.arguments, call_id: ids.callId, name: call.name, ...namespace };
  }
  const status = plan.finish === 'length' ? 'incomplete' : 'completed';
  return { id: ids.itemId, type: 'message', status, role: 'assistant', content: [{ type: 'output_text', annotations: [], logprobs: [], text: plan.text }] };
}

/**
 * The reasoning item a request that includes `reasoning.encrypted_content` gets before its answer
 * (as OpenAI's reasoning models answer it: no summary asked, the reasoning itself encrypted); null
 * without that include.
 */
function reasoningItem(request: Record<string, unknown>): object | null {
  const include = request['include'];
  if (!Array.isArray(include) || !include.includes('reasoning.encrypted_content')) return null;
  return { id: newId('rs_'), type: 'reasoning', summary: [], encrypted_content: Buffer.from(`sim-reasoning:${newId('enc_')}`).toString('base64') };
}

function newItems(plan: Plan): Items {
  const prefix = plan.toolCall ? (plan.toolCall.kind === 'custom' ? 'ctc_' : 'fc_') : 'msg_';
  return { itemId: newId(prefix), callId: newId('call_') };
}

export const openaiResponses: GenerationShape = {
  parse(body): GenInput | ErrorSpec {
    if (typeof body['model'] !== 'string' || body['model'].length === 0) {
      return { status: 400, message: "Missing required parameter: 'model'.", param: 'model', code: 'missing_required_parameter' };
    }
    const input = body['input'];
    if (input !== undefined && typeof input !== 'string' && !Array.isArray(input)) {
      return { status: 400, message: "Invalid type for 'input': expected a string or an array.", param: 'input', code: 'invalid_type' };
    }
    const lastItem = Array.isArray(input) ? asObject(input.at(-1)) : null;
    const lastType = lastItem?.['type'];
    const instructions = typeof body['instructions'] === 'string' ? body['instructions'].length : 0;
    const user = lastUserInput(input);
    return {
      model: body['model'],
      stream: body['stream'] === true,
      lastUserText: user.text,
      inputChars: textChars(input) + instructions,
      maxTokens: intOrNull(body['max_output_tokens']),
      stop: [],
      tools: parseTools(body['tools']),
      toolChoice: parseToolChoice(body['tool_choice']),
      lastIsToolResult: lastType === 'function_call_output' || lastType === 'custom_tool_call_output',
      toolRounds: Array.isArray(input) ? countAfter(input, user.index, (item) => item['type'] === 'function_call' || item['type'] === 'custom_tool_call') : 0,
    };
  },

  body(plan, input, request) {
    const status: Status = plan.finish === 'length' ? 'incomplete' : 'completed';
    const reasoning = reasoningItem(request);
    const output = [finalItem(plan, newItems(plan))];
    return responseObject(newId('resp_'), nowSeconds(), input, request, status, reasoning === null ? output : [reasoning, ...output], plan);
  },

  frames(plan, input, request) {
    const id = newId('resp_');
    const createdAt = nowSeconds();
    const ids = newItems(plan);
    const frames: Frame[] = [];
    let seq = 0;
    const emit = (type: string, fields: object, content = false): void => {
      frames.push(eventFrame(type, { type, sequence_number: seq++, ...fields }, content));
    };
    const inProgress = responseObject(id, createdAt, input, request, 'in_progress', [], null);
    emit('response.created', { response: inProgress });
    emit('response.in_progress', { response: inProgress });
    const reasoning = reasoningItem(request);
    if (reasoning !== null) {
      emit('response.output_item.added', { output_index: 0, item: reasoning });
      emit('response.output_item.done', { output_index: 0, item: reasoning });
    }
    const index = reasoning === null ? 0 : 1;
    const item = finalItem(plan, ids);
    const at = { item_id: ids.itemId, output_index: index };
    const toolCall = plan.toolCall;
    if (toolCall?.kind === 'custom') {
      emit('response.output_item.added', { output_index: index, item: { ...item, status: 'in_progress', input: '' } });
      for (const piece of toolCall.pieces) emit('response.custom_tool_call_input.delta', { ...at, delta: piece }, true);
      emit('response.custom_tool_call_input.done', { ...at, input: toolCall.arguments });
    } else if (toolCall) {
      emit('response.output_item.added', { output_index: index, item: { ...item, status: 'in_progress', arguments: '' } });
      for (const piece of toolCall.pieces) emit('response.function_call_arguments.delta', { ...at, delta: piece }, true);
      emit('response.function_call_arguments.done', { ...at, name: toolCall.name, arguments: toolCall.arguments });
    } else {
      const part = { type: 'output_text', annotations: [], logprobs: [], text: '' };
      emit('response.output_item.added', { output_index: index, item: { ...item, status: 'in_progress', content: [] } });
      emit('response.content_part.added', { ...at, content_index: 0, part });
      for (const piece of plan.pieces) emit('response.output_text.delta', { ...at, content_index: 0, delta: piece, logprobs: [] }, true);
      emit('response.output_text.done', { ...at, content_index: 0, text: plan.text, logprobs: [] });
      emit('response.content_part.done', { ...at, content_index: 0, part: { ...part, text: plan.text } });
    }
    emit('response.output_item.done', { output_index: index, item });
    const status: Status = plan.finish === 'length' ? 'incomplete' : 'completed';
    emit(`response.${status}`, { response: responseObject(id, createdAt, input, request, status, reasoning === null ? [item] : [reasoning, item], plan) });
    return frames;
  },
};
