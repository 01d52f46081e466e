/** Shape-independent description of a request, and the answer the simulator gives to it. */
import type { ToolDirective } from './directives.ts';
import type { ErrorSpec } from './errors.ts';
import type { Frame } from './sse.ts';
import { argumentsFor } from './tool-args.ts';
import { countInputTokens, generateWords, splitPieces, toPieces } from './text-generator.ts';

export interface ToolSpec {
  /** The name the call carries (inside its namespace, for Responses namespace tools). */
  name: string;
  schema: unknown;
  /** `custom`: a Responses custom (freeform) tool, called with a string input. Default `function`. */
  kind?: 'function' | 'custom';
  /** The Responses namespace the tool was offered in. */
  namespace?: string;
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
  /** Tool calls made (assistant turns with a call) after the message `lastUserText` comes from. */
  toolRounds?: number;
  /** Anthropic: the name of an offered `web_search_*` server tool, else null. */
  webSearchTool?: string | null;
}

export interface PlannedToolCall {
  name: string;
  /** `custom`: `arguments` is the custom tool's input text, not JSON. */
  kind: 'function' | 'custom';
  namespace: string | null;
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
  /** Anthropic: server-side web searches to show (server_tool_use + web_search_tool_result pairs) before the answer. */
  webSearches: PlannedWebSearch[];
  outputTokens: number;
}

export interface PlannedWebSearch {
  query: string;
  results: Array<{ url: string; title: string; pageAge: string }>;
}

/** The usage parts a request asked for with directives (see directives.ts). */
export interface UsageParts {
  cached: number;
  cacheWrite: number;
  cacheWrite1h: number;
  webSearch: number;
  reasoning: number;
}

export interface PlanOptions {
  /** Strict mode: a tool is called only on a `#sim:tool=` directive or when tool_choice forces one. */
  strict?: boolean;
  /** `#sim:tool=` / `#sim:tool_args=` directives of the last user text. */
  toolDirectives?: readonly ToolDirective[];
}

interface PickedTool {
  tool: ToolSpec;
  args: Record<string, unknown> | null;
}

/** The offered tool a directive names: its call name, or `{namespace}__{name}` / `{namespace}.{name}`. */
export function findTool(tools: readonly ToolSpec[], name: string): ToolSpec | null {
  return (
    tools.find((tool) => tool.name === name && tool.namespace === undefined) ??
    tools.find((tool) => tool.namespace !== undefined && (`${tool.namespace}__${tool.name}` === name || `${tool.namespace}.${tool.name}` === name)) ??
    tools.find((tool) => tool.name === name) ??
    null
  );
}

function forcedTool(input: GenInput): ToolSpec | null {
  const choice = input.toolChoice;
  if (choice.mode === 'named') return input.tools.find((tool) => tool.name === choice.name) ?? input.tools[0] ?? null;
  if (choice.mode === 'required') return input.tools[0] ?? null;
  return null;
}

function pickTool(input: GenInput, options: PlanOptions): PickedTool | null {
  if (input.tools.length === 0) return null;
  const choice = input.toolChoice;
  if (choice.mode === 'none') return null;
  const directives = options.toolDirectives ?? [];
  if (directives.length > 0) {
    // The n-th directive is answered after n tool rounds; past the last one, only a forced choice calls.
    const wanted = directives[input.toolRounds ?? (input.lastIsToolResult ? 1 : 0)];
    const forced = forcedTool(input);
    if (forced && choice.mode === 'named') {
      if (wanted) return { tool: forced, args: findTool([forced], wanted.name) ? wanted.args : null };
      return input.lastIsToolResult ? null : { tool: forced, args: null };
    }
    if (wanted) {
      const tool = findTool(input.tools, wanted.name);
      return tool ? { tool, args: wanted.args } : null;
    }
    return forced && !input.lastIsToolResult ? { tool: forced, args: null } : null;
  }
  if (input.lastIsToolResult) return null;
  if (options.strict) {
    const forced = forcedTool(input);
    return forced ? { tool: forced, args: null } : null;
  }
  // Outside strict mode, without a directive: as before, the first plain function tool (or the named one).
  const plain = input.tools.filter((tool) => (tool.kind ?? 'function') === 'function' && tool.namespace === undefined);
  const first = plain[0];
  if (!first) return null;
  if (choice.mode === 'named') return { tool: plain.find((tool) => tool.name === choice.name) ?? first, args: null };
  return { tool: first, args: null };
}

/** The call's arguments text: JSON for a function, the input text for a custom tool (`args.input`, else the JSON). */
function callArguments(tool: ToolSpec, args: Record<string, unknown> | null): string {
  if (tool.kind === 'custom') {
    if (args === null) return 'test';
    return typeof args['input'] === 'string' ? args['input'] : JSON.stringify(args);
  }
  return JSON.stringify(args ?? argumentsFor(tool.schema));
}

/** Web search blocks shown at most (usage still reports every requested search). */
const MAX_SHOWN_SEARCHES = 16;

function webSearches(input: GenInput, count: number): PlannedWebSearch[] {
  if (!input.webSearchTool || count <= 0) return [];
  const searches: PlannedWebSearch[] = [];
  for (let i = 0; i < Math.min(count, MAX_SHOWN_SEARCHES); i++) {
    const query = generateWords(`${input.lastUserText}#search${i}`, 4).join(' ');
    const results = [0, 1].map((r) => ({
      url: `https://example.com/simulated/${i + 1}/${r + 1}`,
      title: generateWords(`${query}#${r}`, 3).join(' '),
      pageAge: 'November 1, 2026',
    }));
    searches.push({ query, results });
  }
  return searches;
}

export function makePlan(input: GenInput, wordCount: number, parts: UsageParts, options: PlanOptions = {}): Plan {
  const inputTokens = Math.max(countInputTokens(input.inputChars), parts.cached + parts.cacheWrite + parts.cacheWrite1h);
  const usage = {
    inputTokens,
    cachedTokens: parts.cached,
    cacheWriteTokens: parts.cacheWrite,
    cacheWrite1hTokens: parts.cacheWrite1h,
    reasoningTokens: parts.reasoning,
    webSearchRequests: parts.webSearch,
    webSearches: webSearches(input, parts.webSearch),
  };
  const picked = pickTool(input, options);
  if (picked) {
    const { tool } = picked;
    const args = callArguments(tool, picked.args);
    const pieces = splitPieces(args);
    return {
      pieces: [],
      text: '',
      toolCall: { name: tool.name, kind: tool.kind ?? 'function', namespace: tool.namespace ?? null, arguments: args, pieces },
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
