/** OpenAI `POST /v1/embeddings`: deterministic unit vectors per input, float or base64, with usage. */
import type { ErrorSpec } from './errors.ts';
import { countInputTokens, hashString } from './text-generator.ts';

export interface EmbeddingsRequest {
  model: string;
  /** One entry per input: its text (token arrays as their ids joined by spaces) and its tokens. */
  inputs: { text: string; tokens: number }[];
  format: 'float' | 'base64';
  dimensions: number;
}

const isTokenId = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 0;

/** text-embedding-3-large: 3072; every other model 1536 (text-embedding-3-small, ada-002). */
function defaultDimensions(model: string): number {
  return model.includes('large') ? 3072 : 1536;
}

function inputsOf(input: unknown): EmbeddingsRequest['inputs'] | null {
  if (typeof input === 'string') return input.length > 0 ? [{ text: input, tokens: countInputTokens(input.length) }] : null;
  if (!Array.isArray(input) || input.length === 0 || input.length > 2048) return null;
  if (input.every((item) => typeof item === 'string' && item.length > 0)) {
    return (input as string[]).map((text) => ({ text, tokens: countInputTokens(text.length) }));
  }
  if (input.every(isTokenId)) return [{ text: input.join(' '), tokens: input.length }];
  if (input.every((item) => Array.isArray(item) && item.length > 0 && item.every(isTokenId))) {
    return (input as number[][]).map((ids) => ({ text: ids.join(' '), tokens: ids.length }));
  }
  return null;
}

export function parseEmbeddings(body: Record<string, unknown>): EmbeddingsRequest | ErrorSpec {
  const model = body['model'];
  if (typeof model !== 'string' || model.length === 0) {
    return { status: 400, message: "you must provide a model parameter", param: null, code: null };
  }
  if (body['input'] === undefined) return { status: 400, message: "Missing required parameter: 'input'.", param: 'input', code: 'missing_required_parameter' };
  const inputs = inputsOf(body['input']);
  if (!inputs) return { status: 400, message: "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.", param: null, code: null };
  const format = body['encoding_format'] ?? 'float';
  if (format !== 'float' && format !== 'base64') {
    return { status: 400, message: `Invalid value for 'encoding_format': expected 'float' or 'base64'.`, param: 'encoding_format', code: 'invalid_value' };
  }
  const dimensions = body['dimensions'] ?? defaultDimensions(model);
  if (typeof dimensions !== 'number' || !Number.isInteger(dimensions) || dimensions < 1 || dimensions > 3072) {
    return { status: 400, message: `Invalid value for 'dimensions': integer between 1 and 3072 expected.`, param: 'dimensions', code: 'invalid_value' };
  }
  return { model, inputs, format, dimensions };
}

/** A unit vector of `dimensions` floats seeded by `text` (xorshift32 over the FNV-1a hash). */
export function embeddingVector(text: string, dimensions: number): Float32Array {
  const vector = new Float32Array(dimensions);
  let state = hashString(text) || 1;
  let norm = 0;
  for (let i = 0; i < dimensions; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    const value = state / 0xffffffff - 0.5;
    vector[i] = value;
    norm += value * value;
  }
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  for (let i = 0; i < dimensions; i++) vector[i] = (vector[i] as number) * scale;
  return vector;
}

export function embeddingsInputTokens(request: EmbeddingsRequest): number {
  return request.inputs.reduce((sum, input) => sum + input.tokens, 0);
}

/** `{object: "list", data: [{object: "embedding", index, embedding}], model, usage}`. */
export function embeddingsBody(request: EmbeddingsRequest): object {
  const data = request.inputs.map((input, index) => {
    const vector = embeddingVector(input.text, request.dimensions);
    const embedding = request.format === 'base64' ? Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString('base64') : Array.from(vector);
    return { object: 'embedding', index, embedding };
  });
  const tokens = embeddingsInputTokens(request);
  return { object: 'list', data, model: request.model, usage: { prompt_tokens: tokens, total_tokens: tokens } };
}
