/** Reading text out of the request shapes (string content, or arrays of parts/blocks). */

const TEXT_PART_TYPES = new Set(['text', 'input_text', 'output_text']);

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Plain text of a message `content`: the string, or the text parts joined with "\n". */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const texts: string[] = [];
  for (const part of content) {
    if (typeof part === 'string') texts.push(part);
    else if (isObject(part) && typeof part['text'] === 'string' && (part['type'] === undefined || TEXT_PART_TYPES.has(part['type'] as string))) {
      texts.push(part['text']);
    }
  }
  return texts.join('\n');
}

const TEXT_KEYS = ['text', 'content', 'output', 'arguments', 'refusal'];

/** Characters of text in a request value: strings, and the text-bearing fields of parts/items, recursively. */
export function textChars(value: unknown, depth = 0): number {
  if (typeof value === 'string') return value.length;
  if (depth > 12) return 0;
  if (Array.isArray(value)) {
    let total = 0;
    for (const item of value) total += textChars(item, depth + 1);
    return total;
  }
  if (!isObject(value)) return 0;
  let total = 0;
  for (const key of TEXT_KEYS) {
    if (key in value) total += textChars(value[key], depth + 1);
  }
  const fn = value['function'];
  if (isObject(fn)) total += textChars(fn['arguments'], depth + 1);
  if (Array.isArray(value['tool_calls'])) total += textChars(value['tool_calls'], depth + 1);
  return total;
}

/** Text of the last message with role "user" that has any text (searching from the end). */
export function lastUserText(messages: readonly unknown[]): string {
  return lastUserMessage(messages).text;
}

/** The last message with role "user" that has any text: its text and index (-1 and '' when none). */
export function lastUserMessage(messages: readonly unknown[]): { text: string; index: number } {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (!isObject(message) || message['role'] !== 'user') continue;
    const text = contentText(message['content']);
    if (text.length > 0) return { text, index: i };
  }
  return { text: '', index: -1 };
}

/** How many items after `index` satisfy `isCall` (the tool calls made since that message). */
export function countAfter(items: readonly unknown[], index: number, isCall: (item: Record<string, unknown>) => boolean): number {
  let count = 0;
  for (let i = Math.max(0, index + 1); i < items.length; i++) {
    const item = items[i];
    if (isObject(item) && isCall(item)) count++;
  }
  return count;
}

export function asObject(value: unknown): Record<string, unknown> | null {
  return isObject(value) ? value : null;
}

/** A non-negative integer, or null. */
export function intOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : null;
}

/** `stop` as a list: a string, an array of strings, or nothing. */
export function stopList(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((s): s is string => typeof s === 'string' && s.length > 0);
  return [];
}
