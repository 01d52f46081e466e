import { computeChatCompletionTokenCount, type ChatCompletionFunctionDefinition, type ChatCompletionRequest, type ChatMessage } from "gpt-tokenizer/functionCalling";
import { modelToEncodingMap, type ModelName } from "gpt-tokenizer/mapping";
import { asRecord } from "../core/request-fields.ts";

/**
 * Local token counts for `/v1/messages/count_tokens` on a model served by OpenAI-shape upstreams
 * (contract section 11): the Chat Completions request the Messages body translates to, counted with
 * the model family's tokenizer (gpt-tokenizer) the way OpenAI bills a prompt: every message's role
 * and text plus 3 tokens, 3 tokens priming the answer, tool definitions in the form OpenAI writes
 * them into the prompt, a named tool choice. Images count as OpenAI's fixed tile cost: the image is
 * not decoded to learn its size.
 */
export type EncodingName = "o200k_base" | "cl100k_base";

export interface Encoding {
  countTokens(text: string, options: { disallowedSpecial: Set<string> }): number;
}

/** Text that looks like a special token (`<|endoftext|>`) is ordinary text in a prompt. */
export const AS_TEXT = { disallowedSpecial: new Set<string>() };

/** A low-detail image, and a high-detail 1024x1024 one (85 + 4 tiles x 170): OpenAI's image costs. */
const IMAGE_TOKENS_LOW = 85;
const IMAGE_TOKENS_HIGH = 765;
/** Tokens of each tool call after the first in one assistant turn (its name and arguments come on top). */
const TOOL_CALL_OVERHEAD = 3;

/**
 * The encoding of an OpenAI model family: cl100k_base for gpt-4 (not 4o, 4.1, 4.5), gpt-3.5 and
 * the text-embedding models; o200k_base for gpt-4o, gpt-4.1, the o-series, gpt-5 and every name
 * gpt-tokenizer does not know (the encoding of current models).
 */
export function encodingForModel(model: string): EncodingName {
  const known = (modelToEncodingMap as Record<string, string | undefined>)[model as ModelName];
  if (known !== undefined) return known === "cl100k_base" ? "cl100k_base" : "o200k_base";
  return /^(gpt-4(-|$)|gpt-4-32k|gpt-3\.5|text-embedding-)/.test(model) ? "cl100k_base" : "o200k_base";
}

const encodings = new Map<EncodingName, Promise<Encoding>>();

/** Each encoding's ranks are loaded on first use (hundreds of milliseconds, megabytes), once. */
export function loadEncoding(name: EncodingName): Promise<Encoding> {
  let loading = encodings.get(name);
  if (!loading) {
    loading = name === "cl100k_base" ? import("gpt-tokenizer/encoding/cl100k_base") : import("gpt-tokenizer/encoding/o200k_base");
    encodings.set(name, loading);
  }
  return loading;
}

function textOf(content: unknown): { text: string; imageTokens: number } {
  if (typeof content === "string") return { text: content, imageTokens: 0 };
  if (!Array.isArray(content)) return { text: "", imageTokens: 0 };
  const texts: string[] = [];
  let imageTokens = 0;
  for (const raw of content) {
    const part = asRecord(raw);
    if (typeof part?.text === "string") texts.push(part.text);
    else if (part?.type === "image_url") imageTokens += asRecord(part.image_url)?.detail === "low" ? IMAGE_TOKENS_LOW : IMAGE_TOKENS_HIGH;
  }
  return { text: texts.join("\n"), imageTokens };
}

interface FunctionCall {
  name: string;
  arguments: string;
}

function toolCalls(value: unknown): FunctionCall[] {
  if (!Array.isArray(value)) return [];
  return value.map((raw) => {
    const fn = asRecord(asRecord(raw)?.function);
    return { name: typeof fn?.name === "string" ? fn.name : "", arguments: typeof fn?.arguments === "string" ? fn.arguments : "" };
  });
}

const PROPERTY_TYPES = new Set(["string", "integer", "number", "boolean", "null", "array", "object"]);

/** A JSON schema reduced to what the prompt form of a function reads, safe whatever the client sent. */
function schemaOf(value: unknown, depth = 0): Record<string, unknown> {
  const schema = asRecord(value);
  if (!schema || depth > 32) return {};
  const out: Record<string, unknown> = {};
  if (typeof schema.type === "string" && PROPERTY_TYPES.has(schema.type)) out.type = schema.type;
  if (typeof schema.description === "string") out.description = schema.description;
  if (Array.isArray(schema.enum)) out.enum = schema.enum.filter((item) => typeof item === "string" || typeof item === "number");
  if (schema.items !== undefined) out.items = schemaOf(schema.items, depth + 1);
  if (Array.isArray(schema.required)) out.required = schema.required.filter((item) => typeof item === "string");
  const properties = asRecord(schema.properties);
  if (properties) out.properties = Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, schemaOf(property, depth + 1)]));
  return out;
}

function functionsOf(tools: unknown): ChatCompletionFunctionDefinition[] {
  if (!Array.isArray(tools)) return [];
  const functions: ChatCompletionFunctionDefinition[] = [];
  for (const raw of tools) {
    const fn = asRecord(asRecord(raw)?.function);
    if (!fn || typeof fn.name !== "string") continue;
    const definition: ChatCompletionFunctionDefinition = { name: fn.name, parameters: schemaOf(fn.parameters) as unknown as ChatCompletionFunctionDefinition["parameters"] };
    if (typeof fn.description === "string") definition.description = fn.description;
    functions.push(definition);
  }
  return functions;
}

function functionCallOf(toolChoice: unknown): ChatCompletionRequest["function_call"] {
  if (toolChoice === "none") return "none";
  const name = asRecord(asRecord(toolChoice)?.function)?.name;
  return typeof name === "string" ? { name } : undefined;
}

/**
 * BPE cost grows with the square of a pre-tokenizer piece's length, so one long run of letters,
 * CJK or emoji (a 4,000-character one takes ~50-150 ms) would hold the event loop. Text is counted
 * in segments of at most SEGMENT characters, cut at the last single space between two words (where
 * the tokenizer starts a new piece anyway, so the count is unchanged), and wherever a run of
 * non-space (or space) characters grows past HARD_SEGMENT (at most one token more per cut, in text
 * no prompt holds): no piece is longer than that, so no segment costs more than a few ms.
 */
const SEGMENT = 4096;
const HARD_SEGMENT = 256;
/**
 * Counting runs this long at most between two turns of the event loop, plus one segment. The proxy
 * counts on a worker thread (token-counter-pool.ts), whose loop then still takes its messages; a
 * caller on the main thread is never held for more than ~20 ms either, whatever the text.
 */
const YIELD_AFTER_MS = 8;

const isSpace = (code: number) => code <= 32;

function segmentEnd(text: string, start: number): number {
  const limit = Math.min(text.length, start + SEGMENT);
  let cut = -1;
  let run = 0;
  let inSpace = false;
  for (let index = start; index < limit; index += 1) {
    const code = text.charCodeAt(index);
    const space = isSpace(code);
    run = space === inSpace ? run + 1 : 1;
    inSpace = space;
    if (run > HARD_SEGMENT) return cut > start ? cut : index;
    if (code === 32 && index > start && !isSpace(text.charCodeAt(index - 1)) && index + 1 < text.length && !isSpace(text.charCodeAt(index + 1))) cut = index;
  }
  if (limit === text.length) return limit;
  return cut > start ? cut : limit;
}

interface Counter {
  /** Counts `text` (cached), yielding to the event loop as it goes. */
  add(text: string): Promise<void>;
  /** The count of a text `add` has seen; counted on the spot otherwise. */
  count(text: string): number;
}

function counterFor(tokenizer: Encoding): Counter {
  const counted = new Map<string, number>();
  let sliceStartedAt = performance.now();
  const countNow = (text: string): number => {
    let tokens = 0;
    for (let start = 0; start < text.length; ) {
      const end = segmentEnd(text, start);
      tokens += tokenizer.countTokens(text.slice(start, end), AS_TEXT);
      start = end;
    }
    return tokens;
  };
  return {
    async add(text) {
      if (text.length === 0 || counted.has(text)) return;
      let tokens = 0;
      for (let start = 0; start < text.length; ) {
        const end = segmentEnd(text, start);
        tokens += tokenizer.countTokens(text.slice(start, end), AS_TEXT);
        start = end;
        if (performance.now() - sliceStartedAt >= YIELD_AFTER_MS) {
          await new Promise<void>((resolve) => setImmediate(resolve));
          sliceStartedAt = performance.now();
        }
      }
      counted.set(text, tokens);
    },
    count: (text) => (text.length === 0 ? 0 : (counted.get(text) ?? countNow(text))),
  };
}

/**
 * Tokens of a plain text with the encoding `encoding` (a stream's relayed output, for the estimate
 * billed when its final usage never came: relay/output-meter.ts), counted in segments with turns of
 * the event loop between them, as a body is.
 */
export async function countTextTokens(text: string, encoding: EncodingName): Promise<number> {
  const counter = counterFor(await loadEncoding(encoding));
  await counter.add(text);
  return counter.count(text);
}

/** Input tokens of a Chat Completions request body, with the encoding `encoding`. */
export async function countChatTokens(body: Record<string, unknown>, encoding: EncodingName): Promise<number> {
  const counter = counterFor(await loadEncoding(encoding));
  const messages: ChatMessage[] = [];
  const extraCalls: FunctionCall[] = [];
  let imageTokens = 0;
  for (const raw of Array.isArray(body.messages) ? body.messages : []) {
    const message = asRecord(raw);
    if (!message) continue;
    const content = textOf(message.content);
    imageTokens += content.imageTokens;
    const chat: ChatMessage = { role: typeof message.role === "string" ? message.role : "user", content: content.text };
    if (typeof message.name === "string") chat.name = message.name;
    const [first, ...rest] = toolCalls(message.tool_calls);
    if (first) chat.function_call = first;
    extraCalls.push(...rest);
    messages.push(chat);
  }
  const functions = functionsOf(body.tools);
  const request: ChatCompletionRequest = { messages };
  if (functions.length > 0) {
    request.functions = functions;
    const functionCall = functionCallOf(body.tool_choice);
    if (functionCall) request.function_call = functionCall;
  }
  // The formula runs twice: first only to learn every text it counts (names, arguments, the
  // functions' prompt form, a padded system message), which are then counted with turns of the
  // event loop between segments; then to add up those counts. Nothing is counted in one go.
  const texts = new Set<string>();
  computeChatCompletionTokenCount(request, (text) => {
    texts.add(text);
    return 0;
  });
  for (const call of extraCalls) texts.add(call.name).add(call.arguments);
  for (const text of texts) await counter.add(text);
  const callTokens = extraCalls.reduce((sum, call) => sum + counter.count(call.name) + counter.count(call.arguments) + TOOL_CALL_OVERHEAD, 0);
  return computeChatCompletionTokenCount(request, counter.count) + callTokens + imageTokens;
}
