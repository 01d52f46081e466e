/** Anthropic `POST /v1/messages/count_tokens`: `{"input_tokens": N}` for a Messages body without `max_tokens`. */
import { badRoleIndex, badRoleMessage } from './anthropic-messages.ts';
import type { ErrorSpec } from './errors.ts';
import { lastUserText, textChars } from './text-extract.ts';
import { countInputTokens } from './text-generator.ts';

export interface CountTokensRequest {
  model: string;
  /** Seeds directives (`#sim:fail=500`, ...) as on /v1/messages. */
  lastUserText: string;
  inputTokens: number;
}

/**
 * The same 400s as /v1/messages except `max_tokens`, which is not part of a count. The count is the
 * input tokens /v1/messages reports for the same body (`ceil(chars of message and system text / 4)`)
 * plus the tools' definitions (`ceil(JSON chars / 4)`): deterministic, never 0, growing with input.
 */
export function parseCountTokens(body: Record<string, unknown>): CountTokensRequest | ErrorSpec {
  const invalid = (message: string): ErrorSpec => ({ status: 400, message });
  if (typeof body['model'] !== 'string' || body['model'].length === 0) return invalid('model: Field required');
  const messages = body['messages'];
  if (!Array.isArray(messages)) return invalid('messages: Field required');
  if (messages.length === 0) return invalid('messages: at least one message is required');
  const badRole = badRoleIndex(messages, body['model']);
  if (badRole >= 0) return invalid(badRoleMessage(badRole));
  const tools = body['tools'];
  const toolChars = Array.isArray(tools) && tools.length > 0 ? JSON.stringify(tools).length : 0;
  const inputTokens = countInputTokens(textChars(messages) + textChars(body['system'] ?? '')) + (toolChars > 0 ? countInputTokens(toolChars) : 0);
  return { model: body['model'], lastUserText: lastUserText(messages), inputTokens };
}
