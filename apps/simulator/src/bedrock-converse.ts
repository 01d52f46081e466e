/**
 * AWS Bedrock Runtime's Converse / ConverseStream (any model;
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html): the Converse
 * body is checked as Bedrock checks it (messages, one member per content block), answered by the
 * simulator's own Messages generator, and the answer given back in Converse's words: `output.message`,
 * `stopReason`, `usage` (inputTokens without the cache counts, as for Claude), `metrics`; the stream
 * as `application/vnd.amazon.eventstream` messages named by their event type (`messageStart`,
 * `contentBlockStart` for a tool use only, `contentBlockDelta`, `contentBlockStop`, `messageStop`,
 * `metadata` last with the usage).
 */
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';

const codec = new EventStreamCodec(toUtf8, fromUtf8);

type Json = Record<string, unknown>;

/** One ConverseStream event message. */
export function converseEventMessage(eventType: string, payload: Json): Uint8Array {
  return codec.encode({
    headers: {
      ':event-type': { type: 'string', value: eventType },
      ':content-type': { type: 'string', value: 'application/json' },
      ':message-type': { type: 'string', value: 'event' },
    },
    body: fromUtf8(JSON.stringify(payload)),
  });
}

const record = (value: unknown): Json | null => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : null);

/** A Converse body as the Messages body the simulator's generator answers, or the ValidationException's message. */
export function messagesFromConverse(body: Json, model: string, stream: boolean): Json | string {
  if (!Array.isArray(body['messages']) || body['messages'].length === 0) return 'The provided request is not valid: messages must be a non-empty list.';
  const messages: Json[] = [];
  for (const [index, raw] of (body['messages'] as unknown[]).entries()) {
    const message = record(raw);
    if (!message || (message['role'] !== 'user' && message['role'] !== 'assistant') || !Array.isArray(message['content'])) return `The provided request is not valid: messages.${index} needs a role (user or assistant) and a content list.`;
    const content: Json[] = [];
    for (const [at, blockRaw] of (message['content'] as unknown[]).entries()) {
      const block = record(blockRaw);
      // A ContentBlock is a union: exactly one member.
      if (!block || Object.keys(block).length !== 1) return `The provided request is not valid: messages.${index}.content.${at} must set exactly one member.`;
      const converted = contentBlock(block);
      if (typeof converted === 'string') return `The provided request is not valid: messages.${index}.content.${at}: ${converted}`;
      if (converted) content.push(converted);
    }
    messages.push({ role: message['role'], content });
  }
  const out: Json = { model, messages, stream, max_tokens: 1024 };
  const system = Array.isArray(body['system']) ? (body['system'] as unknown[]).map((block) => String(record(block)?.['text'] ?? '')).join('\n') : '';
  if (system.length > 0) out['system'] = system;
  const inference = record(body['inferenceConfig']);
  if (typeof inference?.['maxTokens'] === 'number') out['max_tokens'] = inference['maxTokens'];
  if (typeof inference?.['temperature'] === 'number') out['temperature'] = inference['temperature'];
  if (typeof inference?.['topP'] === 'number') out['top_p'] = inference['topP'];
  if (Array.isArray(inference?.['stopSequences'])) out['stop_sequences'] = inference['stopSequences'];
  const tools = record(body['toolConfig']);
  if (tools) {
    out['tools'] = (Array.isArray(tools['tools']) ? tools['tools'] : []).map((tool) => {
      const spec = record(record(tool)?.['toolSpec']) ?? {};
      return { name: spec['name'], ...(spec['description'] ? { description: spec['description'] } : {}), input_schema: record(spec['inputSchema'])?.['json'] ?? { type: 'object' } };
    });
    const choice = record(tools['toolChoice']);
    if (choice?.['any']) out['tool_choice'] = { type: 'any' };
    else if (record(choice?.['tool'])) out['tool_choice'] = { type: 'tool', name: record(choice!['tool'])!['name'] };
    else if (choice?.['auto']) out['tool_choice'] = { type: 'auto' };
  }
  return out;
}

function contentBlock(block: Json): Json | string | null {
  if (typeof block['text'] === 'string') return block['text'].length > 0 ? { type: 'text', text: block['text'] } : 'text must not be empty';
  const image = record(block['image']);
  if (image) return { type: 'image', source: { type: 'base64', media_type: `image/${String(image['format'])}`, data: String(record(image['source'])?.['bytes'] ?? '') } };
  const toolUse = record(block['toolUse']);
  if (toolUse) return { type: 'tool_use', id: toolUse['toolUseId'], name: toolUse['name'], input: record(toolUse['input']) ?? {} };
  const result = record(block['toolResult']);
  if (result) {
    const content = (Array.isArray(result['content']) ? (result['content'] as unknown[]) : []).map((part) => {
      const item = record(part) ?? {};
      return { type: 'text', text: typeof item['text'] === 'string' ? item['text'] : JSON.stringify(item['json'] ?? '') };
    });
    return { type: 'tool_result', tool_use_id: result['toolUseId'], content, ...(result['status'] === 'error' ? { is_error: true } : {}) };
  }
  if (record(block['reasoningContent']) || record(block['cachePoint'])) return null;
  return 'an unknown content block';
}

const STOP_REASONS: Record<string, string> = { end_turn: 'end_turn', tool_use: 'tool_use', max_tokens: 'max_tokens', stop_sequence: 'stop_sequence', refusal: 'content_filtered', pause_turn: 'end_turn' };

/** Messages usage in Converse's words. */
export function converseUsage(usage: Json | null): Json {
  const input = Number(usage?.['input_tokens'] ?? 0);
  const output = Number(usage?.['output_tokens'] ?? 0);
  const read = Number(usage?.['cache_read_input_tokens'] ?? 0);
  const write = Number(usage?.['cache_creation_input_tokens'] ?? 0);
  return { inputTokens: input, outputTokens: output, totalTokens: input + output + read + write, ...(read > 0 ? { cacheReadInputTokens: read } : {}), ...(write > 0 ? { cacheWriteInputTokens: write } : {}) };
}

/** A Messages answer as a ConverseResponse. */
export function converseFromMessage(message: Json): Json {
  const content: Json[] = [];
  for (const raw of Array.isArray(message['content']) ? (message['content'] as unknown[]) : []) {
    const block = record(raw) ?? {};
    if (block['type'] === 'text') content.push({ text: block['text'] });
    else if (block['type'] === 'tool_use') content.push({ toolUse: { toolUseId: block['id'], name: block['name'], input: block['input'] ?? {} } });
    else if (block['type'] === 'thinking') content.push({ reasoningContent: { reasoningText: { text: block['thinking'], signature: block['signature'] } } });
  }
  return {
    output: { message: { role: 'assistant', content } },
    stopReason: STOP_REASONS[String(message['stop_reason'])] ?? 'end_turn',
    usage: converseUsage(record(message['usage'])),
    metrics: { latencyMs: 1 },
  };
}

/** Anthropic stream events -> ConverseStream event messages, one stream's state. */
export class ConverseStreamEncoder {
  private usage: Json = {};
  private stopReason = 'end_turn';

  /** The messages one Anthropic event becomes. */
  event(event: Json): Uint8Array[] {
    const index = typeof event['index'] === 'number' ? event['index'] : 0;
    switch (event['type']) {
      case 'message_start':
        this.usage = { ...(record(record(event['message'])?.['usage']) ?? {}) };
        return [converseEventMessage('messageStart', { role: 'assistant' })];
      case 'content_block_start': {
        const block = record(event['content_block']) ?? {};
        // Converse starts a tool use only: text and reasoning begin with their first delta.
        return block['type'] === 'tool_use' ? [converseEventMessage('contentBlockStart', { contentBlockIndex: index, start: { toolUse: { toolUseId: block['id'], name: block['name'] } } })] : [];
      }
      case 'content_block_delta': {
        const delta = record(event['delta']) ?? {};
        const converse =
          delta['type'] === 'text_delta' ? { text: delta['text'] }
          : delta['type'] === 'input_json_delta' ? (String(delta['partial_json'] ?? '') === '' ? null : { toolUse: { input: delta['partial_json'] } })
          : delta['type'] === 'thinking_delta' ? { reasoningContent: { text: delta['thinking'] } }
          : delta['type'] === 'signature_delta' ? { reasoningContent: { signature: delta['signature'] } }
          : null;
        return converse === null ? [] : [converseEventMessage('contentBlockDelta', { contentBlockIndex: index, delta: converse, p: 'abcdefgh' })];
      }
      case 'content_block_stop':
        return [converseEventMessage('contentBlockStop', { contentBlockIndex: index })];
      case 'message_delta':
        this.usage = { ...this.usage, ...(record(event['usage']) ?? {}) };
        this.stopReason = STOP_REASONS[String(record(event['delta'])?.['stop_reason'])] ?? 'end_turn';
        return [];
      case 'message_stop':
        return [converseEventMessage('messageStop', { stopReason: this.stopReason }), converseEventMessage('metadata', { usage: converseUsage(this.usage), metrics: { latencyMs: 1 } })];
      default:
        return [];
    }
  }
}
