/** Shape-independent description of a request, and the answer the simulator gives to it. */
import type { ErrorSpec } from './errors.ts';
import type { Frame } from './sse.ts';
import { argumentsFor } from './tool-args.ts';
import { countInputTokens, generateWords, splitPieces, toPieces } from './text-generator.ts';

export interface ToolSpec {
  name: string;
  schema: unknown;
}

export type ToolChoice = { mode: 'auto' } | { mode: 'none' } | { mode: 'required' } | { mode: 'named'; name: string };

export interface GenInput {
  model: string;
  stream: boolean;
  /** Text of the last user message with text (seeds the words and carries directives). */
  lastUserText: string;
  /** Characters of all message/system/instructions/input text. */
  inputChars: number;
  maxTokens: number | null;
  stop: string[];
  tools: ToolSpec[];
  toolChoice: ToolChoice;
  /** The last message/input item is a tool result. */
  lastIsToolResult: boolean;
}

export interface PlannedToolCall {
  name: string;
  arguments: string;
  /** The arguments in streamed pieces (at least 2). */
  pieces: string[];
}

export type FinishKind = 'stop' | 'length' | 'stop_sequence' | 'tool_call';

export interface Plan {
  /** Text pieces as streamed (first bare, then each with a leading space); empty for tool calls. */
  pieces: string[];
  text: string;
  toolCall: PlannedToolCall | null;
  finish: FinishKind;
  stopSequence: string | null;
  inputTokens: number;
  cachedTokens: number;
  /** 5-minute cache writes (part of inputTokens). */
  cacheWriteTokens: number;
  /** 1-hour cache writes (part of inputTokens). */
  cacheWrite1hTokens: number;
  /** Part of outputTokens spent on (hidden) reasoning. */
  reasoningTokens: number;
  webSearchRequests: number;
  outputTokens: number;
}

/** The usage parts a request asked for with directives (see directives.ts). */
export interface UsageParts {
  cached: number;
  cacheWrite: number;
  cacheWrite1h: number;
  webSearch: number;
  reasoning: number;
}

function pickTool(input: GenInput): ToolSpec | null {
  if (input.tools.length === 0 || input.lastIsToolResult) return null;
  const choice = input.toolChoice;
  if (choice.mode === 'none') return null;
  if (choice.mode === 'named') return input.tools.find((tool) => tool.name === choice.name) ?? input.tools[0] ?? null;
  return input.tools[0] ?? null;
}

export function makePlan(input: GenInput, wordCount: number, parts: UsageParts): Plan {
  const inputTokens = Math.max(countInputTokens(input.inputChars), parts.cached + parts.cacheWrite + parts.cacheWrite1h);
  const usage = {
    inputTokens,
    cachedTokens: parts.cached,
    cacheWriteTokens: parts.cacheWrite,
    cacheWrite1hTokens: parts.cacheWrite1h,
    reasoningTokens: parts.reasoning,
    webSearchRequests: parts.webSearch,
  };
  const tool = pickTool(input);
  if (tool) {
    const args = JSON.stringify(argumentsFor(tool.schema));
    const pieces = splitPieces(args);
    return {
      pieces: [],
      text: '',
      toolCall: { name: tool.name, arguments: args, pieces },
      finish: 'tool_call',
      stopSequence: null,
      ...usage,
      outputTokens: pieces.length + parts.reasoning,
    };
  }
  const words = generateWords(input.lastUserText, wordCount);
  let finish: FinishKind = 'stop';
  let stopSequence: string | null = null;
  let kept = words.length;
  for (let i = 0; i < words.length; i++) {
    if (input.maxTokens !== null && i >= input.maxTokens) {
      finish = 'length';
      kept = i;
      break;
    }
    const word = words[i] as string;
    const stop = input.stop.find((s) => s.trim() === word);
    if (stop !== undefined) {
      finish = 'stop_sequence';
      stopSequence = stop;
      kept = i;
      break;
    }
  }
  // An answer that ends exactly at max_tokens is a natural stop.
  const pieces = toPieces(words.slice(0, kept));
  return {
    pieces,
    text: pieces.join(''),
    toolCall: null,
    finish,
    stopSequence,
    ...usage,
    outputTokens: pieces.length + parts.reasoning,
  };
}

/** A text-generating endpoint (chat completions, responses, messages). */
export interface GenerationShape {
  /** Validate and normalise the request body; an error spec for a provider 400. */
  parse(body: Record<string, unknown>): GenInput | ErrorSpec;
  /** Non-streaming response body. */
  body(plan: Plan, input: GenInput, request: Record<string, unknown>): object;
  /** Streaming frames, in order. */
  frames(plan: Plan, input: GenInput, request: Record<string, unknown>): Frame[];
}

export function isErrorSpec<T extends object>(value: T | ErrorSpec): value is ErrorSpec {
  return 'status' in value;
}
