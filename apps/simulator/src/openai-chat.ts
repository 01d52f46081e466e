/** OpenAI `POST /v1/chat/completions`: request parsing, JSON body and `chat.completion.chunk` stream. */
import type { ErrorSpec } from './errors.ts';
import { newId, nowSeconds } from './ids.ts';
import type { GenInput, GenerationShape, Plan, ToolChoice, ToolSpec } from './plan.ts';
import { DONE_FRAME, dataFrame, type Frame } from './sse.ts';
import { asObject, countAfter, intOrNull, lastUserMessage, stopList, textChars } from './text-extract.ts';

function parseTools(value: unknown): ToolSpec[] {
  if (!Array.isArray(value)) return [];
  const tools: ToolSpec[] = [];
  for (const tool of value) {
    const fn = asObject(asObject(tool)?.['function']);
    if (asObject(tool)?.['type'] === 'function' && fn && typeof fn['name'] === 'string') {
      tools.push({ name: fn['name'], schema: fn['parameters'] });
    }
  }
  return tools;
}

function parseToolChoice(value: unknown): ToolChoice {
  if (value === 'none') return { mode: 'none' };
  if (value === 'required') return { mode: 'required' };
  const name = asObject(asObject(value)?.['function'])?.['name'];
  if (typeof name === 'string') return { mode: 'named', name };
  return { mode: 'auto' };
}

function finishReason(plan: Plan): string {
  if (plan.finish === 'tool_call') return 'tool_calls';
  if (plan.finish === 'length') return 'length';
  return 'stop';
}

function usage(plan: Plan): object {
  return {
    prompt_tokens: plan.inputTokens,
    completion_tokens: plan.outputTokens,
    total_tokens: plan.inputTokens + plan.outputTokens,
    prompt_tokens_details: { cached_tokens: plan.cachedTokens, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: plan.reasoningTokens,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

export const openaiChat: GenerationShape = {
  parse(body): GenInput | ErrorSpec {
    if (typeof body['model'] !== 'string' || body['model'].length === 0) {
      return { status: 400, message: 'you must provide a model parameter', param: 'model', code: null };
    }
    const messages = body['messages'];
    if (!Array.isArray(messages) || messages.length === 0) {
      return { status: 400, message: "Missing required parameter: 'messages'.", param: 'messages', code: 'missing_required_parameter' };
    }
    const last = asObject(messages.at(-1));
    const user = lastUserMessage(messages);
    return {
      model: body['model'],
      stream: body['stream'] === true,
      lastUserText: user.text,
      inputChars: textChars(messages),
      maxTokens: intOrNull(body['max_completion_tokens']) ?? intOrNull(body['max_tokens']),
      stop: stopList(body['stop']),
      tools: parseTools(body['tools']),
      toolChoice: parseToolChoice(body['tool_choice']),
      lastIsToolResult: last?.['role'] === 'tool' || last?.['role'] === 'function',
      toolRounds: countAfter(messages, user.index, (m) => m['role'] === 'assistant' && ((Array.isArray(m['tool_calls']) && m['tool_calls'].length > 0) || asObject(m['function_call']) !== null)),
    };
  },

  body(plan, input) {
    const toolCall = plan.toolCall;
    return {
      id: newId('chatcmpl-'),
      object: 'chat.completion',
      created: nowSeconds(),
      model: input.model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: toolCall ? null : plan.text,
            refusal: null,
            annotations: [],
            ...(toolCall
              ? { tool_calls: [{ id: newId('call_'), type: 'function', function: { name: toolCall.name, arguments: toolCall.arguments } }] }
              : {}),
          },
          logprobs: null,
          finish_reason: finishReason(plan),
        },
      ],
      usage: usage(plan),
      service_tier: 'default',
      system_fingerprint: 'fp_simulator',
    };
  },

  frames(plan, input, request) {
    const includeUsage = asObject(request['stream_options'])?.['include_usage'] === true;
    const base = { id: newId('chatcmpl-'), object: 'chat.completion.chunk', created: nowSeconds(), model: input.model, service_tier: 'default', system_fingerprint: 'fp_simulator' };
    const chunk = (delta: object, finish: string | null, content = false): Frame =>
      dataFrame({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...(includeUsage ? { usage: null } : {}) }, content);
    const frames: Frame[] = [];
    const toolCall = plan.toolCall;
    if (toolCall) {
      const id = newId('call_');
      frames.push(chunk({ role: 'assistant', content: null, tool_calls: [{ index: 0, id, type: 'function', function: { name: toolCall.name, arguments: '' } }], refusal: null }, null));
      for (const piece of toolCall.pieces) frames.push(chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] }, null, true));
    } else {
      frames.push(chunk({ role: 'assistant', content: '', refusal: null }, null));
      for (const piece of plan.pieces) frames.push(chunk({ content: piece }, null, true));
    }
    frames.push(chunk({}, finishReason(plan)));
    if (includeUsage) frames.push(dataFrame({ ...base, choices: [], usage: usage(plan) }));
    frames.push(DONE_FRAME);
    return frames;
  },
};
