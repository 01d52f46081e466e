/** The provider-facing request pipeline: auth, JSON, validation, behaviour (faults), then the answer. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { anthropicMessages } from './anthropic-messages.ts';
import { resolveBehaviour } from './behaviour.ts';
import { isAuthorized, recordedHeaders, type SimContext } from './context.ts';
import { answerJson, applyBehaviour, cutJson, Exchange, inputUsage, isObject, readRequestBody } from './exchange.ts';
import { handleGemini, isGeminiRequest } from './gemini-route.ts';
import { modelList, modelObject } from './models.ts';
import { imageInputTokens, imagesBody, parseImageRequest } from './openai-images.ts';
import { embeddingsBody, embeddingsInputTokens, parseEmbeddings } from './openai-embeddings.ts';
import { parseCountTokens } from './anthropic-count-tokens.ts';
import { openaiChat } from './openai-chat.ts';
import { openaiResponses } from './openai-responses.ts';
import { isErrorSpec, makePlan, type GenerationShape } from './plan.ts';
import { parseToolDirectives } from './directives.ts';
import { strictRefusal } from './strict.ts';
import { playStream } from './sse.ts';
import type { Provider, ReportedUsage } from './types.ts';

const SHAPES: Record<string, GenerationShape> = {
  '/v1/chat/completions': openaiChat,
  '/v1/responses': openaiResponses,
  '/v1/messages': anthropicMessages,
};

/** POST routes answered by a handler of their own (no generated text). */
const OTHER_POST_PATHS = new Set(['/v1/images/generations', '/v1/embeddings', '/v1/messages/count_tokens']);
const POST_PATHS = new Set([...Object.keys(SHAPES), ...OTHER_POST_PATHS]);

function providerFor(path: string, req: IncomingMessage): Provider {
  if (path === '/v1/messages' || path.startsWith('/v1/messages/')) return 'anthropic';
  if (path.startsWith('/v1/models') && req.headers['anthropic-version'] !== undefined) return 'anthropic';
  return POST_PATHS.has(path) || req.headers['anthropic-version'] === undefined ? 'openai' : 'anthropic';
}

export async function handleProvider(ctx: SimContext, req: IncomingMessage, res: ServerResponse, path: string, query = ''): Promise<void> {
  const search = new URLSearchParams(query);
  if (isGeminiRequest(req, path, search)) return handleGemini(ctx, req, res, path, search);
  const provider = providerFor(path, req);
  const ex = new Exchange(ctx, res, provider);
  const read = await readRequestBody(req);
  if (read === 'too_large') return ex.fail({ status: 413, message: 'Request body too large.' });
  if (read === null) return;
  const { body, bodyBytes, jsonError } = read;
  const object = isObject(body) ? body : null;
  const model = typeof object?.['model'] === 'string' ? object['model'] : null;
  const stream = object?.['stream'] === true;
  const authorized = isAuthorized(req, ctx.apiKey, provider === 'anthropic');
  ex.record = ctx.stats.begin({
    method: req.method ?? 'GET', path, provider, model, stream, headers: recordedHeaders(req), authorized, body, bodyBytes, behaviourSource: 'default',
  });
  const record = ex.record;
  res.on('close', () => {
    if (record.outcome === 'pending' && !res.writableFinished) ctx.stats.finish(record, 'aborted');
  });
  res.once('finish', () => {
    record.flushedAt = Date.now();
  });

  if (!authorized) {
    return provider === 'openai'
      ? ex.fail({ status: 401, message: 'Incorrect API key provided.', code: 'invalid_api_key' })
      : ex.fail({ status: 401, message: 'invalid x-api-key' });
  }
  if (provider === 'anthropic' && req.headers['anthropic-version'] === undefined) {
    return ex.fail({ status: 400, message: 'anthropic-version: header is required' });
  }

  if (path === '/v1/models' || path.startsWith('/v1/models/')) {
    if (req.method !== 'GET') return ex.fail({ status: 405, message: `Method ${req.method} not allowed on ${path}.`, code: 'method_not_allowed' });
    const resolved = resolveBehaviour('', { path, model: null, stream: false, explicitPathOnly: true }, ctx.faults, ctx.defaults);
    record.behaviourSource = resolved.source;
    if (!(await applyBehaviour(ex, req, resolved.behaviour))) return;
    if (path === '/v1/models') return ex.json(modelList(ctx.models), null);
    const id = decodeURIComponent(path.slice('/v1/models/'.length));
    return ex.json(modelObject(id), null);
  }

  const shape = SHAPES[path];
  if (!shape && !OTHER_POST_PATHS.has(path)) {
    return ex.fail({ status: 404, message: `Unknown request URL: ${req.method} ${path}.`, code: 'unknown_url' });
  }
  if (req.method !== 'POST') return ex.fail({ status: 405, message: `Method ${req.method} not allowed on ${path}.`, code: 'method_not_allowed' });
  if (jsonError || !object) {
    return provider === 'openai'
      ? ex.fail({ status: 400, message: 'We could not parse the JSON body of your request. (HINT: This likely means you aren\'t using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)', code: null })
      : ex.fail({ status: 400, message: 'There was an error parsing the body of your request. The body must be a valid JSON object.' });
  }

  if (path === '/v1/embeddings') return embeddings(ex, req, object, path);
  if (path === '/v1/messages/count_tokens') return countTokens(ex, req, object, path);
  if (!shape) return images(ex, req, object, path);

  const input = shape.parse(object);
  if (isErrorSpec(input)) return ex.fail(input);
  if (ctx.strict) {
    const refusal = strictRefusal(path, object, req.headers);
    if (refusal) return ex.fail(refusal);
  }
  const resolved = resolveBehaviour(input.lastUserText, { path, model: input.model, stream: input.stream }, ctx.faults, ctx.defaults);
  record.behaviourSource = resolved.source;
  const behaviour = resolved.behaviour;
  if (!(await applyBehaviour(ex, req, behaviour))) return;

  const plan = makePlan(input, behaviour.chunks, behaviour, { strict: ctx.strict, toolDirectives: parseToolDirectives(input.lastUserText) });
  const usage: ReportedUsage = { input_tokens: plan.inputTokens, output_tokens: plan.outputTokens, cached_tokens: plan.cachedTokens, images: 0 };
  if (!input.stream) {
    const responseBody = shape.body(plan, input, object);
    if (behaviour.cutAfter !== null) return cutJson(ex, req, responseBody);
    return ex.json(responseBody, usage);
  }
  const result = await playStream(res, shape.frames(plan, input, object), {
    chunkDelayMs: behaviour.chunkDelayMs,
    cutAfter: behaviour.cutAfter,
    headers: ex.headers(),
    onCut: (sent) => {
      record.chunksSent = sent;
      ex.finish('cut', 200);
    },
  });
  record.chunksSent = result.chunksSent;
  ex.finish(result.outcome, 200, result.outcome === 'ok' ? usage : null);
}

function images(ex: Exchange, req: IncomingMessage, object: Record<string, unknown>, path: string): Promise<void> | void {
  const request = parseImageRequest(object);
  if (isErrorSpec(request)) return ex.fail(request);
  const host = req.headers.host;
  return answerJson(ex, req, path, request.model, request.prompt, () => ({
    body: imagesBody(request, host ? `http://${host}` : ex.ctx.baseUrl()),
    usage: inputUsage(imageInputTokens(request), request.n),
  }));
}

function embeddings(ex: Exchange, req: IncomingMessage, object: Record<string, unknown>, path: string): Promise<void> | void {
  const request = parseEmbeddings(object);
  if (isErrorSpec(request)) return ex.fail(request);
  const text = request.inputs.map((input) => input.text).join('\n');
  return answerJson(ex, req, path, request.model, text, () => ({ body: embeddingsBody(request), usage: inputUsage(embeddingsInputTokens(request)) }));
}

function countTokens(ex: Exchange, req: IncomingMessage, object: Record<string, unknown>, path: string): Promise<void> | void {
  const request = parseCountTokens(object);
  if (isErrorSpec(request)) return ex.fail(request);
  return answerJson(ex, req, path, request.model, request.lastUserText, () => ({ body: { input_tokens: request.inputTokens }, usage: inputUsage(request.inputTokens) }));
}
