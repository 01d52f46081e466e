/** OpenAI `POST /v1/images/generations`: `{created, data: [{b64_json}|{url}], usage}` with a tiny valid PNG. */
import type { ErrorSpec } from './errors.ts';
import { newId, nowSeconds } from './ids.ts';
import { countInputTokens } from './text-generator.ts';

/** A valid 1x1 PNG. */
export const TINY_PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';
export const TINY_PNG = Buffer.from(TINY_PNG_BASE64, 'base64');

export interface ImageRequest {
  model: string;
  prompt: string;
  n: number;
  format: 'b64_json' | 'url';
}

export function parseImageRequest(body: Record<string, unknown>): ImageRequest | ErrorSpec {
  const prompt = body['prompt'];
  if (typeof prompt !== 'string' || prompt.length === 0) {
    return { status: 400, message: "Missing required parameter: 'prompt'.", param: 'prompt', code: 'missing_required_parameter' };
  }
  const n = body['n'] ?? 1;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > 10) {
    return { status: 400, message: `Invalid 'n': integer between 1 and 10 expected.`, param: 'n', code: 'invalid_value' };
  }
  if (body['stream'] === true) {
    return { status: 400, message: 'Streaming image generation is not supported by the simulator.', param: 'stream', code: 'invalid_value' };
  }
  const model = typeof body['model'] === 'string' ? body['model'] : 'dall-e-2';
  const requested = body['response_format'];
  if (requested !== undefined && requested !== null && requested !== 'url' && requested !== 'b64_json') {
    return { status: 400, message: `Invalid 'response_format': expected 'url' or 'b64_json'.`, param: 'response_format', code: 'invalid_value' };
  }
  const format = requested === 'url' || requested === 'b64_json' ? requested : model.startsWith('dall-e') ? 'url' : 'b64_json';
  return { model, prompt, n, format };
}

export function imageInputTokens(request: ImageRequest): number {
  return countInputTokens(request.prompt.length);
}

/** `baseUrl` serves the PNG at `/_sim/images/<id>.png` for the url format. */
export function imagesBody(request: ImageRequest, baseUrl: string): object {
  const data: object[] = [];
  for (let i = 0; i < request.n; i++) {
    data.push(request.format === 'url' ? { url: `${baseUrl}/_sim/images/${newId('img_')}.png` } : { b64_json: TINY_PNG_BASE64 });
  }
  const inputTokens = imageInputTokens(request);
  return {
    created: nowSeconds(),
    data,
    usage: {
      input_tokens: inputTokens,
      input_tokens_details: { text_tokens: inputTokens, image_tokens: 0 },
      output_tokens: 0,
      total_tokens: inputTokens,
    },
  };
}
