/** Gemini API `:countTokens`, `:embedContent` and `:batchEmbedContents`. */
import type { ErrorSpec } from './errors.ts';
import { field, lastUserContent, partsOf, promptChars, readContents } from './gemini-request.ts';
import { embeddingVector } from './openai-embeddings.ts';
import { asObject } from './text-extract.ts';
import { countInputTokens } from './text-generator.ts';

export interface GeminiCountRequest {
  /** Seeds directives (`#sim:fail=500`, ...). */
  lastUserText: string;
  totalTokens: number;
}

function invalid(message: string): ErrorSpec {
  return { status: 400, message };
}

/**
 * `{"contents":[…]}` or `{"generateContentRequest":{model, contents, systemInstruction, tools, …}}`
 * (not both). The count is the `promptTokenCount` generateContent reports for the same contents and
 * system instruction, plus `ceil(JSON chars of tools / 4)` when there are tools.
 */
export function readCountTokens(body: Record<string, unknown>): GeminiCountRequest | ErrorSpec {
  const wrapped = asObject(field(body, 'generateContentRequest'));
  if (wrapped && body['contents'] !== undefined) {
    return invalid('* CountTokensRequest: contents and generate_content_request are mutually exclusive; set only one of them.\n');
  }
  const request = wrapped ?? body;
  const contents = readContents(request, wrapped ? 'CountTokensRequest.generate_content_request' : 'CountTokensRequest');
  if (!Array.isArray(contents)) return contents;
  const tools = request['tools'];
  const toolChars = Array.isArray(tools) && tools.length > 0 ? JSON.stringify(tools).length : 0;
  const totalTokens = countInputTokens(promptChars(request)) + (toolChars > 0 ? countInputTokens(toolChars) : 0);
  return { lastUserText: lastUserContent(contents).text, totalTokens };
}

export function countTokensBody(request: GeminiCountRequest): object {
  return { totalTokens: request.totalTokens, promptTokensDetails: [{ modality: 'TEXT', tokenCount: request.totalTokens }] };
}

export interface GeminiEmbedRequest {
  /** `batch`: `:batchEmbedContents` (`{"embeddings":[…]}`); else `:embedContent` (`{"embedding":…}`). */
  batch: boolean;
  inputs: { text: string; tokens: number; dimensions: number }[];
}

/** text-embedding-004 and embedding-001: 768; gemini-embedding-001 (and other models): 3072. */
export function defaultEmbeddingDimensions(model: string): number {
  return model === 'text-embedding-004' || model === 'embedding-001' ? 768 : 3072;
}

function readOne(request: Record<string, unknown> | null, model: string, at: string): GeminiEmbedRequest['inputs'][number] | ErrorSpec {
  const content = asObject(request?.['content']);
  if (!content) return invalid(`* ${at}.content: content is not specified\n`);
  const text = partsOf(content)
    .map((part) => (typeof part['text'] === 'string' ? part['text'] : ''))
    .join('\n');
  if (text.length === 0) return invalid(`* ${at}.content.parts: contents.parts must not be empty.\n`);
  const requested = field(request, 'outputDimensionality');
  const dimensions = requested === undefined || requested === null ? defaultEmbeddingDimensions(model) : requested;
  if (typeof dimensions !== 'number' || !Number.isInteger(dimensions) || dimensions < 1 || dimensions > 3072) {
    return invalid(`* ${at}.output_dimensionality: output_dimensionality must be between 1 and 3072.\n`);
  }
  return { text, tokens: countInputTokens(text.length), dimensions };
}

export function readEmbed(body: Record<string, unknown>, model: string, batch: boolean): GeminiEmbedRequest | ErrorSpec {
  if (!batch) {
    const one = readOne(body, model, 'EmbedContentRequest');
    return 'status' in one ? one : { batch, inputs: [one] };
  }
  const requests = body['requests'];
  if (!Array.isArray(requests) || requests.length === 0) return invalid('* BatchEmbedContentsRequest.requests: requests is not specified\n');
  if (requests.length > 250) return invalid('* BatchEmbedContentsRequest.requests: at most 250 requests can be in one batch.\n');
  const inputs: GeminiEmbedRequest['inputs'] = [];
  for (const [i, request] of requests.entries()) {
    const one = readOne(asObject(request), model, `BatchEmbedContentsRequest.requests[${i}]`);
    if ('status' in one) return one;
    inputs.push(one);
  }
  return { batch, inputs };
}

export function embedInputTokens(request: GeminiEmbedRequest): number {
  return request.inputs.reduce((sum, input) => sum + input.tokens, 0);
}

/** Deterministic unit vectors seeded by each text (the same as /v1/embeddings gives the same text). */
export function embedBody(request: GeminiEmbedRequest): object {
  const embeddings = request.inputs.map((input) => ({ values: Array.from(embeddingVector(input.text, input.dimensions)) }));
  return request.batch ? { embeddings } : { embedding: embeddings[0] };
}
