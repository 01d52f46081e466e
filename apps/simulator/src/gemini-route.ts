/**
 * The Gemini API routes (`/v1beta/...`, and `/v1/...` as `@google/genai` 3.x calls them): key check
 * (`x-goog-api-key`, `?key=`, Bearer), Google's error envelope, then generate / stream / countTokens /
 * embed / models, with the same directives, faults, strict mode and stats as the other shapes.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { resolveBehaviour } from './behaviour.ts';
import { geminiAuthError, recordedHeaders, type SimContext } from './context.ts';
import { parseToolDirectives } from './directives.ts';
import type { ErrorSpec } from './errors.ts';
import { answerJson, applyBehaviour, cutJson, Exchange, inputUsage, isObject, readRequestBody } from './exchange.ts';
import { countTokensBody, embedBody, embedInputTokens, readCountTokens, readEmbed } from './gemini-embed.ts';
import {
  blockedFrames, blockedResponse, DEFAULT_THOUGHT_TOKENS, generateFrames, generateResponse, geminiPlan, reportedUsage,
} from './gemini-generate.ts';
import { bareModel, geminiModelList, geminiModelResource, isEmbeddingModel } from './gemini-models.ts';
import { parseGeminiRoute, readGenerateRequest, unknownField, unknownFieldError, type GeminiMethod } from './gemini-request.ts';
import { isErrorSpec, makePlan } from './plan.ts';
import { playStream } from './sse.ts';
import { geminiStrictRefusal } from './strict.ts';

export { isGeminiRequest } from './gemini-request.ts';

function notFound(message = 'The requested URL was not found on this server.'): ErrorSpec {
  return { status: 404, message };
}

/** Google's 404 for a model that does not serve `method`. */
function unsupportedModel(model: string, version: string, method: string): ErrorSpec {
  return notFound(`models/${model} is not found for API version ${version}, or is not supported for ${method}. Call ListModels to see the list of available models and their supported methods.`);
}

export async function handleGemini(ctx: SimContext, req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): Promise<void> {
  const route = parseGeminiRoute(path) ?? { kind: 'unknown' as const, version: 'v1beta' };
  const ex = new Exchange(ctx, res, 'gemini');
  const read = await readRequestBody(req);
  if (read === 'too_large') return ex.fail({ status: 413, message: 'Request payload size exceeds the limit: 67108864 bytes.' });
  if (read === null) return;
  const { body, bodyBytes, jsonError } = read;
  const model = route.kind === 'method' || route.kind === 'get' ? bareModel(route.model) : null;
  const stream = route.kind === 'method' && route.method === 'streamGenerateContent';
  const authError = geminiAuthError(req, query, ctx.apiKey);
  ex.record = ctx.stats.begin({
    method: req.method ?? 'GET', path, provider: 'gemini', model, stream, headers: recordedHeaders(req), authorized: authError === null, body, bodyBytes, behaviourSource: 'default',
  });
  const record = ex.record;
  res.on('close', () => {
    if (record.outcome === 'pending' && !res.writableFinished) ctx.stats.finish(record, 'aborted');
  });
  res.once('finish', () => {
    record.flushedAt = Date.now();
  });
  if (authError) return ex.fail(authError);

  if (route.kind === 'unknown') return ex.fail(notFound());
  if (route.kind === 'list' || route.kind === 'get') {
    if (req.method !== 'GET') return ex.fail(notFound());
    const resolved = resolveBehaviour('', { path, model, stream: false, explicitPathOnly: true }, ctx.faults, ctx.defaults);
    record.behaviourSource = resolved.source;
    if (!(await applyBehaviour(ex, req, resolved.behaviour))) return;
    if (route.kind === 'list') return ex.json(geminiModelList(ctx.geminiModels, query.get('pageSize'), query.get('pageToken')), null);
    const id = model as string;
    if (ctx.strict && !ctx.geminiModels.includes(id)) return ex.fail(unsupportedModel(id, route.version, 'generateContent'));
    return ex.json(geminiModelResource(id), null);
  }

  if (req.method !== 'POST') return ex.fail(notFound());
  if (jsonError) return ex.fail({ status: 400, message: 'Invalid JSON payload received. Unexpected token.' });
  if (body !== null && !isObject(body)) return ex.fail({ status: 400, message: `Invalid JSON payload received. Expected an object.` });
  const object = (body ?? {}) as Record<string, unknown>;
  const id = model as string;
  const method: GeminiMethod = route.method;
  if (method === 'generateContent' || method === 'streamGenerateContent') return generate(ex, req, res, path, query, route.version, id, object);
  if (method === 'countTokens') return countTokens(ex, req, path, id, object);
  return embed(ex, req, path, route.version, id, object, method === 'batchEmbedContents');
}

async function generate(ex: Exchange, req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams, version: string, model: string, object: Record<string, unknown>): Promise<void> {
  const ctx = ex.ctx;
  const record = ex.record!;
  const stream = record.stream;
  const input = readGenerateRequest(object, model, stream);
  if (isErrorSpec(input)) return ex.fail(input);
  if (ctx.strict) {
    if (isEmbeddingModel(model)) return ex.fail(unsupportedModel(model, version, 'generateContent'));
    const refusal = geminiStrictRefusal(object, model);
    if (refusal) return ex.fail(refusal);
  }
  const resolved = resolveBehaviour(input.lastUserText, { path, model, stream }, ctx.faults, ctx.defaults);
  record.behaviourSource = resolved.source;
  const behaviour = resolved.behaviour;
  if (!(await applyBehaviour(ex, req, behaviour))) return;

  const reasoning = behaviour.reasoning > 0 ? behaviour.reasoning : input.includeThoughts ? DEFAULT_THOUGHT_TOKENS : 0;
  let plan = geminiPlan(makePlan(input, behaviour.chunks, { ...behaviour, reasoning }, { strict: ctx.strict, toolDirectives: parseToolDirectives(input.lastUserText) }), input);
  const blocked = input.blockReason;
  if (blocked !== null) plan = { ...plan, pieces: [], text: '', toolCall: null, reasoningTokens: 0, outputTokens: 0 };
  const usage = reportedUsage(plan);
  if (!stream) {
    const responseBody = blocked !== null ? blockedResponse(plan, input, blocked) : generateResponse(plan, input);
    if (behaviour.cutAfter !== null) return cutJson(ex, req, responseBody);
    return ex.json(responseBody, usage);
  }
  const sse = query.get('alt') === 'sse';
  const frames = blocked !== null ? blockedFrames(plan, input, blocked, sse) : generateFrames(plan, input, sse);
  const result = await playStream(res, frames, {
    chunkDelayMs: behaviour.chunkDelayMs,
    cutAfter: behaviour.cutAfter,
    headers: sse ? {} : { 'content-type': 'application/json; charset=UTF-8' },
    onCut: (sent) => {
      record.chunksSent = sent;
      ex.finish('cut', 200);
    },
  });
  record.chunksSent = result.chunksSent;
  ex.finish(result.outcome, 200, result.outcome === 'ok' ? usage : null);
}

function countTokens(ex: Exchange, req: IncomingMessage, path: string, model: string, object: Record<string, unknown>): Promise<void> | void {
  if (ex.ctx.strict) {
    const unknown = unknownField(object, ['contents', 'generateContentRequest']);
    if (unknown !== null) return ex.fail(unknownFieldError(unknown));
  }
  const request = readCountTokens(object);
  if (isErrorSpec(request)) return ex.fail(request);
  return answerJson(ex, req, path, model, request.lastUserText, () => ({ body: countTokensBody(request), usage: inputUsage(request.totalTokens) }));
}

function embed(ex: Exchange, req: IncomingMessage, path: string, version: string, model: string, object: Record<string, unknown>, batch: boolean): Promise<void> | void {
  if (ex.ctx.strict) {
    if (!isEmbeddingModel(model)) return ex.fail(unsupportedModel(model, version, batch ? 'batchEmbedContents' : 'embedContent'));
    const unknown = unknownField(object, batch ? ['requests'] : ['model', 'content', 'taskType', 'title', 'outputDimensionality']);
    if (unknown !== null) return ex.fail(unknownFieldError(unknown));
  }
  const request = readEmbed(object, model, batch);
  if (isErrorSpec(request)) return ex.fail(request);
  const text = request.inputs.map((input) => input.text).join('\n');
  return answerJson(ex, req, path, model, text, () => ({ body: embedBody(request), usage: inputUsage(embedInputTokens(request)) }));
}
