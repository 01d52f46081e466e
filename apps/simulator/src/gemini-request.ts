/**
 * The Gemini API request reader: routes (`/{v1,v1beta}/models[/{model}[:{method}]]`) and the
 * GenerateContentRequest (`contents`, `systemInstruction`, `tools`, `toolConfig`,
 * `generationConfig`), read into the simulator's shape-independent `GenInput`. Google's JSON parser
 * takes both the lowerCamel and the proto (snake_case) field names, so does this reader.
 */
import type { IncomingMessage } from 'node:http';
import type { ErrorSpec } from './errors.ts';
import { capabilitiesFor } from './model-capabilities.ts';
import type { GenInput, ToolChoice, ToolSpec } from './plan.ts';
import { asObject, intOrNull } from './text-extract.ts';

export type GeminiMethod = 'generateContent' | 'streamGenerateContent' | 'countTokens' | 'embedContent' | 'batchEmbedContents';

export const GEMINI_METHODS: readonly GeminiMethod[] = ['generateContent', 'streamGenerateContent', 'countTokens', 'embedContent', 'batchEmbedContents'];

export type GeminiRoute =
  | { kind: 'list'; version: string }
  | { kind: 'get'; version: string; model: string }
  | { kind: 'method'; version: string; model: string; method: GeminiMethod }
  | { kind: 'unknown'; version: string };

const ROUTE = /^\/(v1|v1beta)\/models(?:\/([^/:]+)(?::([A-Za-z]+))?)?\/?$/;

/** The Gemini route of `path` (no query), or `unknown` under a Gemini version; null outside `/v1beta`, `/v1`. */
export function parseGeminiRoute(path: string): GeminiRoute | null {
  const version = path.startsWith('/v1beta/') ? 'v1beta' : path.startsWith('/v1/') ? 'v1' : null;
  if (version === null) return null;
  const match = ROUTE.exec(path);
  if (!match) return { kind: 'unknown', version };
  const rawModel = match[2];
  if (rawModel === undefined) return { kind: 'list', version };
  let model: string;
  try {
    model = decodeURIComponent(rawModel);
  } catch {
    return { kind: 'unknown', version };
  }
  const method = match[3];
  if (method === undefined) return { kind: 'get', version, model };
  if (!(GEMINI_METHODS as readonly string[]).includes(method)) return { kind: 'unknown', version };
  return { kind: 'method', version, model, method: method as GeminiMethod };
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Whether a request is for the Gemini routes: anything under `/v1beta/`; under `/v1/`, a POST to
 * `models/{model}:{method}` (`@google/genai` 3.x's default version), and a `GET /v1/models[/{m}]`
 * carrying Google's `x-goog-api-key` / `x-goog-api-client` header or `?key=` (the same path answers
 * OpenAI and Anthropic clients otherwise).
 */
export function isGeminiRequest(req: IncomingMessage, path: string, query: URLSearchParams): boolean {
  if (path.startsWith('/v1beta/')) return true;
  if (!path.startsWith('/v1/models')) return false;
  const route = parseGeminiRoute(path);
  if (route?.kind === 'method') return req.method === 'POST';
  if (route?.kind !== 'list' && route?.kind !== 'get') return false;
  if (header(req, 'anthropic-version') !== undefined) return false;
  return header(req, 'x-goog-api-key') !== undefined || header(req, 'x-goog-api-client') !== undefined || query.has('key');
}

/** `maxOutputTokens` -> `max_output_tokens`. */
export function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** A field by its lowerCamel name or its proto (snake_case) name. */
export function field(object: Record<string, unknown> | null, name: string): unknown {
  if (!object) return undefined;
  const value = object[name];
  return value !== undefined ? value : object[snakeCase(name)];
}

/** The `parts` of a Content, or []. */
export function partsOf(content: unknown): Record<string, unknown>[] {
  const parts = asObject(content)?.['parts'];
  return Array.isArray(parts) ? parts.map(asObject).filter((p): p is Record<string, unknown> => p !== null) : [];
}

/** Visible text of a Content: its non-thought text parts joined with "\n". */
export function contentText(content: unknown): string {
  return partsOf(content)
    .filter((part) => typeof part['text'] === 'string' && part['thought'] !== true)
    .map((part) => part['text'] as string)
    .join('\n');
}

/** Characters of text in Contents: text parts, function call arguments and function responses as JSON. */
export function geminiChars(value: unknown): number {
  const contents = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
  let total = 0;
  for (const content of contents) {
    if (typeof content === 'string') {
      total += content.length;
      continue;
    }
    for (const part of partsOf(content)) {
      if (typeof part['text'] === 'string') total += part['text'].length;
      const call = asObject(field(part, 'functionCall'));
      if (call) total += JSON.stringify(call['args'] ?? {}).length;
      const response = asObject(field(part, 'functionResponse'));
      if (response) total += JSON.stringify(response['response'] ?? {}).length;
    }
  }
  return total;
}

const hasPart = (content: unknown, name: string): boolean => partsOf(content).some((part) => field(part, name) !== undefined);

/** The role of a Content; AI Studio takes a missing role as `user`. */
function roleOf(content: unknown): unknown {
  const role = asObject(content)?.['role'];
  return role === undefined || role === '' ? 'user' : role;
}

/** The last user Content with visible text: its text and index ('' and -1 when none). */
export function lastUserContent(contents: readonly unknown[]): { text: string; index: number } {
  for (let i = contents.length - 1; i >= 0; i--) {
    if (roleOf(contents[i]) !== 'user') continue;
    const text = contentText(contents[i]);
    if (text.length > 0) return { text, index: i };
  }
  return { text: '', index: -1 };
}

const GOOGLE_TYPES = new Set(['STRING', 'NUMBER', 'INTEGER', 'BOOLEAN', 'ARRAY', 'OBJECT', 'NULL', 'TYPE_UNSPECIFIED']);

/**
 * Google's OpenAPI-subset Schema (and the upper-case `responseJsonSchema` Gemini CLI sends) as JSON
 * Schema: type names lower-cased, `nullable` kept; everything else as it is.
 */
export function normalizeSchema(schema: unknown, depth = 0): unknown {
  if (depth > 32) return schema;
  if (Array.isArray(schema)) return schema.map((item) => normalizeSchema(item, depth + 1));
  const object = asObject(schema);
  if (!object) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(object)) {
    if (key === 'type' && typeof value === 'string' && GOOGLE_TYPES.has(value)) out[key] = value.toLowerCase();
    else if (key === 'properties' && asObject(value)) {
      out[key] = Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([name, s]) => [name, normalizeSchema(s, depth + 1)]));
    } else if (key === 'items' || key === 'anyOf' || key === 'oneOf' || key === 'allOf' || key === 'not' || key === 'additionalProperties') {
      out[key] = normalizeSchema(value, depth + 1);
    } else out[key] = value;
  }
  return out;
}

function parseTools(value: unknown): ToolSpec[] {
  if (!Array.isArray(value)) return [];
  const tools: ToolSpec[] = [];
  for (const tool of value) {
    const declarations = field(asObject(tool), 'functionDeclarations');
    if (!Array.isArray(declarations)) continue;
    for (const declaration of declarations) {
      const d = asObject(declaration);
      if (!d || typeof d['name'] !== 'string') continue;
      const schema = field(d, 'parametersJsonSchema') ?? field(d, 'parameters');
      tools.push({ name: d['name'], schema: normalizeSchema(schema) });
    }
  }
  return tools;
}

/** `toolConfig.functionCallingConfig`: AUTO / VALIDATED, NONE, ANY (with one allowed name: that one). */
function parseToolChoice(toolConfig: unknown): ToolChoice {
  const config = asObject(field(asObject(toolConfig), 'functionCallingConfig'));
  const mode = config?.['mode'];
  if (mode === 'NONE') return { mode: 'none' };
  if (mode !== 'ANY') return { mode: 'auto' };
  const allowed = field(config, 'allowedFunctionNames');
  if (Array.isArray(allowed) && allowed.length === 1 && typeof allowed[0] === 'string') return { mode: 'named', name: allowed[0] };
  return { mode: 'required' };
}

export interface GeminiInput extends GenInput {
  /** `thinkingConfig.includeThoughts` on a model that thinks (and thinking not off): thought summary parts. */
  includeThoughts: boolean;
  /** `responseMimeType: application/json`: the answer is JSON (matching `schema` when one is given). */
  json: { schema: unknown } | null;
  /** `#sim:block=REASON`: the prompt is blocked (`promptFeedback.blockReason`, no candidates). */
  blockReason: string | null;
  /** Gemini 3: function calls carry an `id` and a `thoughtSignature`; text answers end with a signature. */
  signatures: boolean;
}

const BLOCK_DIRECTIVE = /#sim:block(?:_reason)?=([A-Z_]{2,40})/;

function invalid(message: string): ErrorSpec {
  return { status: 400, message };
}

/** Contents and system instruction characters (what `promptTokenCount` is made of). */
export function promptChars(body: Record<string, unknown>): number {
  return geminiChars(body['contents']) + geminiChars(field(body, 'systemInstruction'));
}

/** The `contents` of a request, or Google's 400. */
export function readContents(body: Record<string, unknown>, request = 'GenerateContentRequest'): unknown[] | ErrorSpec {
  const contents = body['contents'];
  if (contents === undefined || contents === null || (Array.isArray(contents) && contents.length === 0)) {
    return invalid(`* ${request}.contents: contents is not specified\n`);
  }
  if (!Array.isArray(contents)) return invalid(`Invalid JSON payload received. Unknown name "contents": Proto field is not repeating, cannot start list.`);
  for (const [i, content] of contents.entries()) {
    if (!asObject(content)) return invalid(`Invalid value at 'contents[${i}]' (type.googleapis.com/google.ai.generativelanguage.v1beta.Content): ${JSON.stringify(content)}`);
    if (partsOf(content).length === 0) return invalid(`* ${request}.contents[${i}].parts: contents.parts must not be empty.\n`);
  }
  return contents;
}

/** A GenerateContentRequest as the simulator's input (model and stream come from the route). */
export function readGenerateRequest(body: Record<string, unknown>, model: string, stream: boolean): GeminiInput | ErrorSpec {
  const contents = readContents(body);
  if (!Array.isArray(contents)) return contents;
  const config = asObject(field(body, 'generationConfig'));
  const thinking = asObject(field(config, 'thinkingConfig'));
  const caps = capabilitiesFor(model);
  const thinkingOff = field(thinking, 'thinkingBudget') === 0 && caps?.thinkingRequired !== true;
  const includeThoughts = field(thinking, 'includeThoughts') === true && (caps?.reasoning ?? true) && !thinkingOff;
  const mime = field(config, 'responseMimeType');
  const schema = field(config, 'responseJsonSchema') ?? field(config, 'responseSchema');
  const user = lastUserContent(contents);
  const stops = field(config, 'stopSequences');
  return {
    model,
    stream,
    lastUserText: user.text,
    inputChars: promptChars(body),
    maxTokens: intOrNull(field(config, 'maxOutputTokens')),
    stop: Array.isArray(stops) ? stops.filter((s): s is string => typeof s === 'string' && s.length > 0) : [],
    tools: parseTools(body['tools']),
    toolChoice: parseToolChoice(field(body, 'toolConfig')),
    lastIsToolResult: hasPart(contents.at(-1), 'functionResponse'),
    toolRounds: contents.slice(user.index + 1).filter((c) => roleOf(c) === 'model' && hasPart(c, 'functionCall')).length,
    includeThoughts,
    json: mime === 'application/json' ? { schema: schema === undefined ? null : normalizeSchema(schema) } : null,
    blockReason: BLOCK_DIRECTIVE.exec(user.text)?.[1] ?? null,
    signatures: caps?.thoughtSignatures === true,
  };
}

/** The top-level fields of a GenerateContentRequest on the Gemini API (lowerCamel; snake_case also taken). */
export const GENERATE_FIELDS: readonly string[] = ['model', 'contents', 'systemInstruction', 'tools', 'toolConfig', 'generationConfig', 'safetySettings', 'cachedContent'];

/** The first top-level field Google does not know, or null. */
export function unknownField(body: Record<string, unknown>, known: readonly string[] = GENERATE_FIELDS): string | null {
  const names = new Set([...known, ...known.map(snakeCase)]);
  return Object.keys(body).find((key) => !names.has(key)) ?? null;
}

/** Google's 400 for an unknown field. */
export function unknownFieldError(name: string): ErrorSpec {
  const description = `Invalid JSON payload received. Unknown name "${name}": Cannot find field.`;
  return {
    status: 400,
    message: description,
    details: [{ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ description }] }],
  };
}
