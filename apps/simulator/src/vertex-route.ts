/**
 * Google Vertex AI's Claude routes (https://docs.cloud.google.com/vertex-ai/generative-ai/docs/partner-models/claude):
 * `POST {/v1}/projects/{p}/locations/{region}/publishers/anthropic/models/{model}:rawPredict` and
 * `:streamRawPredict` (and `count-tokens:rawPredict`), the body Anthropic's without `model` with
 * `anthropic_version`; auth is a bearer token the simulator's own token endpoint issued
 * (`POST /oauth2/token`, the JWT-bearer grant of the service-account key file it hands out). Answers
 * are Anthropic's; platform errors (auth, quota, overload) use Google's envelope.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SimContext } from './context.ts';
import type { CloudAccounts } from './cloud-accounts.ts';
import { forwardInner, innerErrorMessage, jsonObject, readRaw, sendProviderError } from './dialect-front.ts';

const GOOGLE_STATUS: Record<number, string> = { 400: 'INVALID_ARGUMENT', 401: 'UNAUTHENTICATED', 403: 'PERMISSION_DENIED', 404: 'NOT_FOUND', 429: 'RESOURCE_EXHAUSTED', 500: 'INTERNAL', 503: 'UNAVAILABLE', 504: 'DEADLINE_EXCEEDED' };

function googleError(status: number, message: string): object {
  return { error: { code: status, message, status: GOOGLE_STATUS[status] ?? (status >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION') } };
}

export function isVertexRequest(path: string): boolean {
  return path.startsWith('/projects/') || path.startsWith('/v1/projects/') || path.startsWith('/v1beta1/projects/') || path === '/oauth2/token';
}

/** The token endpoint: form `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=<jwt>`. */
async function token(ctx: SimContext, accounts: CloudAccounts, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const form = new URLSearchParams((await readRaw(req)).toString('utf8'));
  const assertion = form.get('assertion');
  if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer' || assertion === null) {
    return sendProviderError(res, 400, { error: 'unsupported_grant_type', error_description: 'Invalid grant_type.' });
  }
  const issued = accounts.issue(assertion, `${ctx.baseUrl()}/oauth2/token`);
  if (issued === null) return sendProviderError(res, 400, { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' });
  sendProviderError(res, 200, { access_token: issued.token, expires_in: issued.expiresIn, token_type: 'Bearer' });
}

/**
 * Gemini on Vertex (`publishers/google/models/{m}:generateContent`, `:streamGenerateContent?alt=sse`,
 * `:countTokens`): the simulator's Gemini API route with the same body; Vertex requires every
 * content's role.
 */
async function geminiOnVertex(ctx: SimContext, req: IncomingMessage, res: ServerResponse, raw: Buffer, model: string, method: string, query: string): Promise<void> {
  const body = jsonObject(raw);
  if (body === null) return sendProviderError(res, 400, googleError(400, 'Invalid JSON payload received.'));
  const contents = Array.isArray(body['contents']) ? (body['contents'] as unknown[]) : [];
  if (method !== 'countTokens' && contents.some((content) => (content as { role?: unknown } | null)?.role === undefined)) {
    return sendProviderError(res, 400, googleError(400, 'Please use a valid role: user, model.'));
  }
  await forwardInner(ctx, req, res, { url: `/v1beta/models/${model}:${method}`, query, headers: { 'x-goog-api-key': ctx.apiKey ?? 'vertex' }, body }, { streamChunk: (text) => text });
}

export async function handleVertex(ctx: SimContext, accounts: CloudAccounts, req: IncomingMessage, res: ServerResponse, path: string, query = ''): Promise<void> {
  if (path === '/oauth2/token') return token(ctx, accounts, req, res);
  const raw = await readRaw(req);
  const auth = accounts.checkBearer(req.headers.authorization);
  if (auth !== 'ok') {
    const message = auth === 'expired'
      ? 'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. The access token has expired.'
      : 'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.';
    return sendProviderError(res, 401, googleError(401, message), { 'www-authenticate': 'Bearer realm="https://accounts.google.com/"' });
  }
  const gemini = /^(?:\/v1|\/v1beta1)?\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/google\/models\/([^/:]+):(generateContent|streamGenerateContent|countTokens)$/.exec(path);
  if (gemini) return geminiOnVertex(ctx, req, res, raw, gemini[3] as string, gemini[4] as string, query);
  const match = /^(?:\/v1|\/v1beta1)?\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/anthropic\/models\/([^/:]+):(rawPredict|streamRawPredict)$/.exec(path);
  if (!match) return sendProviderError(res, 404, googleError(404, `The requested URL ${path} was not found on this server.`));
  const model = decodeURIComponent(match[3] as string);
  const body = jsonObject(raw);
  if (body === null) return sendProviderError(res, 400, googleError(400, 'Invalid JSON payload received.'));
  if (typeof body['anthropic_version'] !== 'string') return sendProviderError(res, 400, { type: 'error', error: { type: 'invalid_request_error', message: 'anthropic_version: Field required' } });
  const { anthropic_version: _version, ...rest } = body;
  const countTokens = model === 'count-tokens';
  const stream = match[4] === 'streamRawPredict';
  const headers: Record<string, string> = { 'anthropic-version': '2023-06-01', 'x-api-key': ctx.apiKey ?? 'vertex' };
  const beta = req.headers['anthropic-beta'];
  if (typeof beta === 'string') headers['anthropic-beta'] = beta;
  const inner = countTokens ? { url: '/v1/messages/count_tokens', body: rest } : { url: '/v1/messages', body: { ...rest, model, stream: stream || rest['stream'] === true } };
  await forwardInner(ctx, req, res, { ...inner, headers }, {
    streamChunk: (text) => text,
    whole(status, outHeaders, answer) {
      // Model errors stay Anthropic's; the platform's (auth, quota, overload) are Google's.
      if (status < 400 || status === 400) return { status, headers: outHeaders, body: answer };
      return { status, headers: outHeaders, body: JSON.stringify(googleError(status, innerErrorMessage(answer))) };
    },
  });
}
