/**
 * Azure OpenAI's URLs (https://learn.microsoft.com/azure/ai-foundry/openai/reference): the
 * deployment form `/openai/deployments/{deployment}/chat/completions?api-version=…` (the deployment
 * is the model) and the v1 path `/openai/v1/chat/completions`; the key in `api-key`, or a bearer
 * token. Answers are OpenAI's plus Azure's content-filter results (a first stream chunk with no
 * choices, `prompt_filter_results` in a body); errors carry a string `code`, a 429 its `retry-after`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SimContext } from './context.ts';
import { forwardInner, innerErrorMessage, jsonObject, readRaw, sendProviderError } from './dialect-front.ts';

const FILTERS = [{ prompt_index: 0, content_filter_results: { hate: { filtered: false, severity: 'safe' }, self_harm: { filtered: false, severity: 'safe' }, sexual: { filtered: false, severity: 'safe' }, violence: { filtered: false, severity: 'safe' } } }];
const FIRST_CHUNK = `data: ${JSON.stringify({ choices: [], created: 0, id: '', model: '', object: '', prompt_filter_results: FILTERS })}\n\n`;

function azureError(status: number, code: string, message: string): object {
  return { error: { code, message } };
}

export function isAzureRequest(path: string): boolean {
  return path.startsWith('/openai/');
}

export async function handleAzure(ctx: SimContext, req: IncomingMessage, res: ServerResponse, path: string, search: URLSearchParams): Promise<void> {
  const raw = await readRaw(req);
  const key = req.headers['api-key'];
  const bearer = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1];
  if (ctx.apiKey !== null && key !== ctx.apiKey && bearer !== ctx.apiKey) {
    return sendProviderError(res, 401, azureError(401, '401', 'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.'));
  }
  const deployment = /^\/openai\/deployments\/([^/]+)(\/.*)$/.exec(path);
  const v1 = /^\/openai\/v1(\/.*)$/.exec(path);
  const body = jsonObject(raw);
  if (body === null) return sendProviderError(res, 400, azureError(400, 'BadRequest', 'The request body is not valid JSON.'));
  let operation: string;
  if (deployment) {
    if (!search.get('api-version')) return sendProviderError(res, 404, azureError(404, '404', 'Resource not found'));
    body['model'] = decodeURIComponent(deployment[1] as string);
    operation = deployment[2] as string;
  } else if (v1) {
    operation = v1[1] as string;
  } else {
    return sendProviderError(res, 404, azureError(404, '404', 'Resource not found'));
  }
  const stream = body['stream'] === true;
  let first = true;
  await forwardInner(ctx, req, res, { url: `/v1${operation}`, headers: { authorization: `Bearer ${ctx.apiKey ?? 'azure'}` }, body }, {
    streamChunk(text) {
      if (!first) return text;
      first = false;
      return FIRST_CHUNK + text;
    },
    whole(status, headers, answer) {
      if (status < 400) {
        const parsed = jsonObject(answer);
        if (parsed === null || stream) return { status, headers, body: answer };
        return { status, headers, body: JSON.stringify({ ...parsed, prompt_filter_results: FILTERS }) };
      }
      const message = innerErrorMessage(answer);
      if (status === 429) {
        const seconds = String(headers['retry-after'] ?? '1');
        return { status, headers: { ...headers, 'retry-after': seconds, 'retry-after-ms': String(Number(seconds) * 1000) }, body: JSON.stringify(azureError(429, '429', `Requests to the ChatCompletions_Create Operation under Azure OpenAI API version ${search.get('api-version') ?? 'v1'} have exceeded token rate limit of your current tier. Please retry after ${seconds} seconds.`)) };
      }
      if (status === 404) return { status, headers, body: JSON.stringify(azureError(404, 'DeploymentNotFound', 'The API deployment for this resource does not exist.')) };
      return { status, headers, body: JSON.stringify({ error: { message, type: null, param: null, code: String(status), status } }) };
    },
  });
}
