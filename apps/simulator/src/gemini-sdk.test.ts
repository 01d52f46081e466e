/**
 * The official `@google/genai` client against the simulator's Gemini API: `/v1` (the SDK's default
 * since 3.x) and `/v1beta` (Gemini CLI's), generate, stream, a chat with function calling over two
 * steps, countTokens, embedContent (which calls `:batchEmbedContents`), models list/get, errors as
 * the SDK's ApiError, and strict refusals.
 */
import { ApiError, GoogleGenAI, type GenerateContentResponse } from '@google/genai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { encodeToolArgs } from './directives.ts';
import { startSimulator, type Simulator } from './index.ts';
import { generateWords } from './text-generator.ts';
import { post, WEATHER_ARGS, WEATHER_SCHEMA } from './test-helpers.ts';

const KEY = 'sk-gemini-test';
let sim: Simulator;
let strict: Simulator;
let ai: GoogleGenAI;
let beta: GoogleGenAI;
let strictAi: GoogleGenAI;

function client(url: string, apiVersion?: string, apiKey = KEY): GoogleGenAI {
  return new GoogleGenAI({ apiKey, vertexai: false, httpOptions: { baseUrl: url, ...(apiVersion ? { apiVersion } : {}) } });
}

beforeAll(async () => {
  sim = await startSimulator({ apiKey: KEY });
  strict = await startSimulator({ apiKey: KEY, strict: true });
  ai = client(sim.url);
  beta = client(sim.url, 'v1beta');
  strictAi = client(strict.url, 'v1beta');
});
afterAll(async () => {
  await sim.close();
  await strict.close();
});
beforeEach(() => {
  sim.stats.clear();
  strict.stats.clear();
  sim.faults.clear();
});

async function rejection(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => {
      throw new Error('expected an error');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

/** The Google envelope inside an ApiError's message. */
function envelope(error: ApiError): { code: number; message: string; status: string; details?: Array<Record<string, unknown>> } {
  return (JSON.parse(error.message) as { error: { code: number; message: string; status: string; details?: Array<Record<string, unknown>> } }).error;
}

const weatherTools = [{ functionDeclarations: [{ name: 'get_time', parametersJsonSchema: { type: 'object', properties: {} } }, { name: 'get_weather', parametersJsonSchema: WEATHER_SCHEMA }] }];

describe('generateContent', () => {
  it('answers on /v1 (the SDK default) with the generated words, usage and STOP', async () => {
    const prompt = 'Hello there';
    const r = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: prompt, config: { systemInstruction: 'be nice' } });
    expect(r.text).toBe(generateWords(prompt, 12).join(' '));
    expect(r.candidates?.[0]?.finishReason).toBe('STOP');
    expect(r.candidates?.[0]?.content?.role).toBe('model');
    expect(r.modelVersion).toBe('gemini-2.5-flash');
    expect(r.responseId).toMatch(/^[a-z0-9]+$/);
    // ceil((11 + 7) / 4) = 5 prompt tokens: contents and system instruction.
    expect(r.usageMetadata).toMatchObject({ promptTokenCount: 5, candidatesTokenCount: 12, totalTokenCount: 17 });
    expect(r.usageMetadata?.thoughtsTokenCount).toBeUndefined();
    const record = sim.stats.last!;
    expect(record).toMatchObject({ provider: 'gemini', path: '/v1/models/gemini-2.5-flash:generateContent', model: 'gemini-2.5-flash', stream: false, status: 200, outcome: 'ok', authorized: true });
    expect(record.usage).toEqual({ input_tokens: 5, output_tokens: 12, cached_tokens: 0, images: 0 });
    expect(record.headers['x-goog-api-key']).toMatch(/^<redacted:[0-9a-f]{12}>$/);
    expect(record.headers['x-goog-api-client']).toMatch(/google-genai-sdk/);
  });

  it('answers on /v1beta (Gemini CLI, SDK 1.x-2.x)', async () => {
    const r = await beta.models.generateContent({ model: 'gemini-3.5-flash-lite', contents: [{ role: 'user', parts: [{ text: 'beta' }] }] });
    expect(r.text).toBe(generateWords('beta', 12).join(' '));
    expect(sim.stats.last?.path).toBe('/v1beta/models/gemini-3.5-flash-lite:generateContent');
    // Gemini 3: the text part carries a thought signature.
    expect(r.candidates?.[0]?.content?.parts?.[0]?.thoughtSignature).toEqual(expect.any(String));
  });

  it('stops at maxOutputTokens (MAX_TOKENS) and at a stop sequence (STOP)', async () => {
    const r = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'cut me', config: { maxOutputTokens: 4 } });
    expect(r.candidates?.[0]?.finishReason).toBe('MAX_TOKENS');
    expect(r.text).toBe(generateWords('cut me', 4).join(' '));
    expect(r.usageMetadata?.candidatesTokenCount).toBe(4);
    const words = generateWords('cut me', 12);
    const s = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'cut me', config: { stopSequences: [words[3]!] } });
    expect(s.candidates?.[0]?.finishReason).toBe('STOP');
    expect(s.text).toBe(words.slice(0, words.indexOf(words[3]!)).join(' '));
  });

  it('shows thoughts with includeThoughts and counts them as thoughtsTokenCount; #sim:reasoning and #sim:cached set the counts', async () => {
    const r = await ai.models.generateContent({ model: 'gemini-2.5-pro', contents: 'think', config: { thinkingConfig: { includeThoughts: true, thinkingBudget: 1024 } } });
    const parts = r.candidates?.[0]?.content?.parts ?? [];
    expect(parts[0]).toMatchObject({ thought: true, text: generateWords('think#thought', 6).join(' ') });
    expect(r.text).toBe(generateWords('think', 12).join(' '));
    expect(r.usageMetadata).toMatchObject({ promptTokenCount: 2, candidatesTokenCount: 12, thoughtsTokenCount: 6, totalTokenCount: 20 });

    const prompt = 'long thoughts #sim:reasoning=40 #sim:cached=3';
    const hidden = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: prompt });
    expect(hidden.candidates?.[0]?.content?.parts?.some((p) => p.thought)).toBe(false);
    const input = Math.ceil(prompt.length / 4);
    expect(hidden.usageMetadata).toMatchObject({ promptTokenCount: input, candidatesTokenCount: 12, thoughtsTokenCount: 40, cachedContentTokenCount: 3, totalTokenCount: input + 52 });
    expect(sim.stats.last?.usage).toEqual({ input_tokens: input, output_tokens: 52, cached_tokens: 3, images: 0 });
  });

  it('answers JSON matching responseJsonSchema (upper-case types, as Gemini CLI sends them)', async () => {
    const schema = {
      type: 'OBJECT',
      properties: { complexity_reasoning: { type: 'STRING' }, complexity_score: { type: 'INTEGER' }, flags: { type: 'ARRAY', items: { type: 'STRING' } } },
      required: ['complexity_reasoning', 'complexity_score'],
    };
    const r = await beta.models.generateContent({ model: 'gemini-3.5-flash-lite', contents: 'route this', config: { responseMimeType: 'application/json', responseJsonSchema: schema } });
    expect(JSON.parse(r.text!)).toEqual({ complexity_reasoning: 'test', complexity_score: 1, flags: [] });
    const plain = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'json please', config: { responseMimeType: 'application/json' } });
    expect(JSON.parse(plain.text!)).toEqual({ answer: generateWords('json please', 12).join(' ') });
  });

  it('reports a blocked prompt (#sim:block=REASON) with promptFeedback and no candidates', async () => {
    const r = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'bad #sim:block=PROHIBITED_CONTENT' });
    expect(r.candidates).toBeUndefined();
    expect(r.promptFeedback?.blockReason).toBe('PROHIBITED_CONTENT');
    expect(r.usageMetadata?.candidatesTokenCount).toBeUndefined();
    expect(sim.stats.last?.usage?.output_tokens).toBe(0);
  });
});

describe('generateContentStream', () => {
  it('streams one word per chunk; the text reassembles; usage and finishReason on the last chunk', async () => {
    const prompt = 'stream it #sim:cached=2';
    const chunks: GenerateContentResponse[] = [];
    for await (const chunk of await ai.models.generateContentStream({ model: 'gemini-2.5-flash', contents: prompt })) chunks.push(chunk);
    expect(chunks.map((c) => c.text ?? '').join('')).toBe(generateWords(prompt, 12).join(' '));
    const last = chunks.at(-1)!;
    expect(last.candidates?.[0]?.finishReason).toBe('STOP');
    expect(chunks.slice(0, -1).every((c) => c.candidates?.[0]?.finishReason === undefined)).toBe(true);
    const input = Math.ceil(prompt.length / 4);
    expect(last.usageMetadata).toMatchObject({ promptTokenCount: input, candidatesTokenCount: 12, cachedContentTokenCount: 2, totalTokenCount: input + 12 });
    // Earlier chunks carry the running (prompt-only) usage, as Google's do.
    expect(chunks[0]!.usageMetadata).toMatchObject({ promptTokenCount: input, totalTokenCount: input });
    expect(chunks[0]!.usageMetadata?.candidatesTokenCount).toBeUndefined();
    expect(new Set(chunks.map((c) => c.responseId)).size).toBe(1);
    const record = sim.stats.last!;
    expect(record).toMatchObject({ path: '/v1/models/gemini-2.5-flash:streamGenerateContent', stream: true, chunksSent: 12, outcome: 'ok' });
    expect(record.usage).toEqual({ input_tokens: input, output_tokens: 12, cached_tokens: 2, images: 0 });
  });

  it('frames events as Google does: data: lines ended by CRLF CRLF, no [DONE]; the JSON array without alt=sse', async () => {
    const url = `${sim.url}/v1beta/models/gemini-2.5-flash:streamGenerateContent`;
    const body = { contents: [{ role: 'user', parts: [{ text: 'frames #sim:chunks=3' }] }] };
    const sse = await post(`${url}?alt=sse`, body, { 'x-goog-api-key': KEY });
    expect(sse.status).toBe(200);
    expect(sse.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = sse.text.split('\r\n\r\n');
    expect(events.at(-1)).toBe('');
    expect(events.slice(0, -1)).toHaveLength(4);
    for (const event of events.slice(0, -1)) {
      expect(event.startsWith('data: {')).toBe(true);
      expect(event).not.toContain('\n');
    }
    expect(sse.text).not.toContain('[DONE]');

    const array = await post(url, body, { 'x-goog-api-key': KEY });
    expect(array.headers.get('content-type')).toMatch(/^application\/json/);
    const parsed = JSON.parse(array.text) as Array<{ candidates: Array<{ content: { parts: Array<{ text: string }> }; finishReason?: string }> }>;
    expect(parsed).toHaveLength(4);
    expect(parsed.map((r) => r.candidates[0]!.content.parts[0]!.text).join('')).toBe(generateWords('frames #sim:chunks=3', 3).join(' '));
    expect(parsed.at(-1)!.candidates[0]!.finishReason).toBe('STOP');
  });

  it('streams thoughts first, and ends a Gemini 3 answer with an empty text part carrying the signature', async () => {
    const chunks: GenerateContentResponse[] = [];
    const stream = await beta.models.generateContentStream({ model: 'gemini-3.1-pro-preview', contents: 'ponder #sim:reasoning=30', config: { thinkingConfig: { includeThoughts: true, thinkingLevel: 'HIGH' as never } } });
    for await (const chunk of stream) chunks.push(chunk);
    const parts = chunks.map((c) => c.candidates![0]!.content!.parts![0]!);
    expect(parts.slice(0, 6).every((p) => p.thought === true)).toBe(true);
    expect(parts.at(-1)).toMatchObject({ text: '', thoughtSignature: expect.any(String) });
    expect(chunks.at(-1)!.usageMetadata).toMatchObject({ thoughtsTokenCount: 30, candidatesTokenCount: 12 });
  });
});

describe('function calling', () => {
  const ARGS = { city: 'Lisbon', days: 3, metric: false };
  const directive = `What is the weather? #sim:tool=get_weather #sim:tool_args=${encodeToolArgs(ARGS)}`;

  it('a chat over two steps: a whole functionCall with id and signature (Gemini 3), then text after the functionResponse', async () => {
    const chat = strictAi.chats.create({ model: 'gemini-3.1-pro-preview', config: { tools: weatherTools } });
    const first = await chat.sendMessage({ message: directive });
    const call = first.functionCalls?.[0];
    expect(call).toMatchObject({ name: 'get_weather', args: ARGS, id: expect.any(String) });
    expect(first.candidates?.[0]?.finishReason).toBe('STOP');
    const signature = first.candidates?.[0]?.content?.parts?.[0]?.thoughtSignature;
    expect(signature).toEqual(expect.any(String));

    const second = await chat.sendMessage({ message: [{ functionResponse: { id: call!.id!, name: 'get_weather', response: { temperature: 21 } } }] });
    expect(second.functionCalls).toBeUndefined();
    expect(second.text).toBe(generateWords(directive, 12).join(' '));
    // The history went back with the call and its signature (strict mode refuses it otherwise).
    const sent = strict.stats.last!.body as { contents: Array<{ role: string; parts: Array<Record<string, unknown>> }> };
    expect(sent.contents.map((c) => c.role)).toEqual(['user', 'model', 'user']);
    expect(sent.contents[1]!.parts[0]).toMatchObject({ functionCall: { name: 'get_weather', args: ARGS }, thoughtSignature: signature });
    expect(strict.stats.last?.status).toBe(200);
  });

  it('the same two steps streamed; schema arguments without tool_args; no id or signature before Gemini 3', async () => {
    const chat = ai.chats.create({ model: 'gemini-2.5-flash', config: { tools: weatherTools } });
    const calls: GenerateContentResponse[] = [];
    for await (const chunk of await chat.sendMessageStream({ message: 'weather? #sim:tool=get_weather' })) calls.push(chunk);
    expect(calls).toHaveLength(1);
    const call = calls[0]!.functionCalls![0]!;
    expect(call).toEqual({ name: 'get_weather', args: WEATHER_ARGS });
    expect(calls[0]!.candidates?.[0]?.finishReason).toBe('STOP');
    expect(calls[0]!.usageMetadata?.candidatesTokenCount).toBeGreaterThanOrEqual(2);
    let text = '';
    for await (const chunk of await chat.sendMessageStream({ message: [{ functionResponse: { name: 'get_weather', response: { ok: true } } }] })) text += chunk.text ?? '';
    expect(text).toBe(generateWords('weather? #sim:tool=get_weather', 12).join(' '));
    // The SDK keeps one model content per streamed chunk: the call, then 12 words and the last chunk.
    expect(chat.getHistory().map((c) => c.role)).toEqual(['user', 'model', 'user', ...Array<string>(13).fill('model')]);
  });

  it('calls the first tool outside strict mode without a directive, none with mode NONE, the allowed one with ANY', async () => {
    const auto = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'hi', config: { tools: weatherTools } });
    expect(auto.functionCalls?.[0]?.name).toBe('get_time');
    const none = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'hi', config: { tools: weatherTools, toolConfig: { functionCallingConfig: { mode: 'NONE' as never } } } });
    expect(none.functionCalls).toBeUndefined();
    const forced = await strictAi.models.generateContent({ model: 'gemini-2.5-flash', contents: 'hi', config: { tools: weatherTools, toolConfig: { functionCallingConfig: { mode: 'ANY' as never, allowedFunctionNames: ['get_weather'] } } } });
    expect(forced.functionCalls?.[0]).toMatchObject({ name: 'get_weather', args: WEATHER_ARGS });
    const quiet = await strictAi.models.generateContent({ model: 'gemini-2.5-flash', contents: 'hi', config: { tools: weatherTools } });
    expect(quiet.functionCalls).toBeUndefined();
  });
});

describe('countTokens, embeddings, models', () => {
  it('countTokens equals the promptTokenCount of generateContent for the same contents', async () => {
    const contents = 'count these words for me, please';
    const count = await ai.models.countTokens({ model: 'gemini-2.5-flash', contents });
    const r = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents });
    expect(count.totalTokens).toBe(r.usageMetadata?.promptTokenCount);
    expect(sim.stats.requests[0]).toMatchObject({ path: '/v1/models/gemini-2.5-flash:countTokens', provider: 'gemini', usage: { input_tokens: count.totalTokens } });
    // The wrapped form with tools counts the tools too.
    const wrapped = await post(`${sim.url}/v1beta/models/gemini-2.5-flash:countTokens`, { generateContentRequest: { model: 'models/gemini-2.5-flash', contents: [{ parts: [{ text: contents }] }], tools: weatherTools } }, { 'x-goog-api-key': KEY });
    expect((JSON.parse(wrapped.text) as { totalTokens: number }).totalTokens).toBe(count.totalTokens! + Math.ceil(JSON.stringify(weatherTools).length / 4));
  });

  it('embedContent calls :batchEmbedContents: one unit vector per content, outputDimensionality long; :embedContent answers one', async () => {
    const r = await ai.models.embedContent({ model: 'gemini-embedding-001', contents: ['first text', 'second text'], config: { outputDimensionality: 8, taskType: 'RETRIEVAL_DOCUMENT' } });
    expect(r.embeddings).toHaveLength(2);
    for (const e of r.embeddings!) {
      expect(e.values).toHaveLength(8);
      expect(Math.hypot(...e.values!)).toBeCloseTo(1, 5);
    }
    expect(r.embeddings![0]!.values).not.toEqual(r.embeddings![1]!.values);
    expect(sim.stats.last).toMatchObject({ path: '/v1/models/gemini-embedding-001:batchEmbedContents', usage: { input_tokens: 6 } });
    const full = await ai.models.embedContent({ model: 'gemini-embedding-001', contents: 'first text' });
    expect(full.embeddings![0]!.values).toHaveLength(3072);

    const single = await post(`${sim.url}/v1beta/models/text-embedding-004:embedContent?key=${KEY}`, { content: { parts: [{ text: 'first text' }] } });
    expect(single.status).toBe(200);
    expect((JSON.parse(single.text) as { embedding: { values: number[] } }).embedding.values).toHaveLength(768);
  });

  it('models.list pages through Google list form; models.get gives one resource', async () => {
    const names: string[] = [];
    for await (const model of await ai.models.list({ config: { pageSize: 4 } })) names.push(model.name!);
    expect(names).toEqual(['gemini-2.5-flash', 'gemini-2.5-pro', 'gemini-3.1-pro-preview', 'gemini-3.5-flash-lite', 'text-embedding-004', 'gemini-embedding-001'].map((id) => `models/${id}`));
    const pro = await beta.models.get({ model: 'gemini-2.5-pro' });
    expect(pro).toMatchObject({ name: 'models/gemini-2.5-pro', outputTokenLimit: 65_536, inputTokenLimit: 1_048_576, thinking: true });
    expect(pro.supportedActions).toContain('generateContent');
    const embedding = await ai.models.get({ model: 'text-embedding-004' });
    expect(embedding.supportedActions).toContain('embedContent');
  });

  it('GET /v1/models stays the OpenAI list without a Google header', async () => {
    const openai = await fetch(`${sim.url}/v1/models`, { headers: { authorization: `Bearer ${KEY}` } });
    expect(((await openai.json()) as { object: string }).object).toBe('list');
    const google = await fetch(`${sim.url}/v1/models`, { headers: { 'x-goog-api-key': KEY } });
    expect(((await google.json()) as { models: unknown[] }).models).toHaveLength(6);
  });
});

describe('errors and keys', () => {
  it('a directive failure is an ApiError with the status, Google envelope and RetryInfo', async () => {
    const error = await rejection(ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'slow down #sim:fail=429 #sim:retry_after=7' }));
    expect(error.status).toBe(429);
    const body = envelope(error);
    expect(body).toMatchObject({ code: 429, status: 'RESOURCE_EXHAUSTED' });
    expect(body.details).toEqual([{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '7s' }]);
    const streamed = await rejection(ai.models.generateContentStream({ model: 'gemini-2.5-flash', contents: 'no #sim:fail=500' }));
    expect(streamed.status).toBe(500);
    expect(envelope(streamed).status).toBe('INTERNAL');
  });

  it('a queued fault applies to the Gemini routes and is recorded', async () => {
    sim.faults.push({ match: { model: 'gemini-2.5-flash', stream: true }, behaviour: { failStatus: 503 } });
    const error = await rejection(ai.models.generateContentStream({ model: 'gemini-2.5-flash', contents: 'plain' }));
    expect(error.status).toBe(503);
    expect(envelope(error).status).toBe('UNAVAILABLE');
    expect(sim.stats.last).toMatchObject({ provider: 'gemini', behaviourSource: 'fault', outcome: 'failed', status: 503 });
    expect(sim.faults.size).toBe(0);
  });

  it('an unknown key is 400 INVALID_ARGUMENT with ErrorInfo API_KEY_INVALID; ?key= and Bearer are taken; no key is 403', async () => {
    const error = await rejection(client(sim.url, undefined, 'wrong').models.generateContent({ model: 'gemini-2.5-flash', contents: 'hi' }));
    expect(error.status).toBe(400);
    const body = envelope(error);
    expect(body).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT', message: 'API key not valid. Please pass a valid API key.' });
    expect(body.details?.[0]).toMatchObject({ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' });
    expect(sim.stats.last?.authorized).toBe(false);

    const url = `${sim.url}/v1beta/models/gemini-2.5-flash:generateContent`;
    const body2 = { contents: [{ parts: [{ text: 'hi' }] }] };
    expect((await post(`${url}?key=${KEY}`, body2)).status).toBe(200);
    expect((await post(url, body2, { authorization: `Bearer ${KEY}` })).status).toBe(200);
    expect((await post(url, body2, { authorization: 'Bearer nope' })).status).toBe(401);
    const none = await post(url, body2);
    expect(none.status).toBe(403);
    expect(JSON.parse(none.text)).toMatchObject({ error: { code: 403, status: 'PERMISSION_DENIED' } });
  });

  it('bad requests answer in Google envelope: no contents, bad JSON, unknown routes', async () => {
    const url = `${sim.url}/v1beta/models/gemini-2.5-flash`;
    const missing = await post(`${url}:generateContent`, {}, { 'x-goog-api-key': KEY });
    expect(missing.status).toBe(400);
    expect(JSON.parse(missing.text)).toEqual({ error: { code: 400, message: '* GenerateContentRequest.contents: contents is not specified\n', status: 'INVALID_ARGUMENT' } });
    const bad = await post(`${url}:generateContent`, '{not json', { 'x-goog-api-key': KEY });
    expect(JSON.parse(bad.text)).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT' } });
    const unknown = await post(`${url}:predictLongRunning`, {}, { 'x-goog-api-key': KEY });
    expect(JSON.parse(unknown.text)).toMatchObject({ error: { code: 404, status: 'NOT_FOUND' } });
  });
});

describe('strict mode refusals', () => {
  const url = (model: string): string => `${strict.url}/v1beta/models/${model}:generateContent`;
  const headers = { 'x-goog-api-key': KEY };

  it('maxOutputTokens above the model maximum and thinkingBudget 0 on Gemini 2.5 Pro are ApiError 400s', async () => {
    const tooLong = await rejection(strictAi.models.generateContent({ model: 'gemini-2.5-flash', contents: 'hi', config: { maxOutputTokens: 100_000 } }));
    expect(tooLong.status).toBe(400);
    expect(envelope(tooLong)).toMatchObject({ status: 'INVALID_ARGUMENT', message: expect.stringContaining('maxOutputTokens value of 100000 but the supported range is from 1 (inclusive) to 65537 (exclusive)') });
    const noThinking = await rejection(strictAi.models.generateContentStream({ model: 'gemini-2.5-pro', contents: 'hi', config: { thinkingConfig: { thinkingBudget: 0 } } }));
    expect(envelope(noThinking).message).toBe('Budget 0 is invalid. This model only works in thinking mode.');
    // Accepted where Google accepts them, and outside strict mode.
    await expect(strictAi.models.generateContent({ model: 'gemini-2.5-flash', contents: 'hi', config: { maxOutputTokens: 65_536, thinkingConfig: { thinkingBudget: 0 } } })).resolves.toBeDefined();
    await expect(ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'hi', config: { maxOutputTokens: 100_000 } })).resolves.toBeDefined();
  });

  it('an unknown top-level field, a role other than user/model; snake_case field names are taken', async () => {
    const unknown = await post(url('gemini-2.5-flash'), { contents: [{ role: 'user', parts: [{ text: 'hi' }] }], temperature: 1 }, headers);
    expect(unknown.status).toBe(400);
    expect(JSON.parse(unknown.text)).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT', message: 'Invalid JSON payload received. Unknown name "temperature": Cannot find field.' } });
    const role = await post(url('gemini-2.5-flash'), { contents: [{ role: 'assistant', parts: [{ text: 'hi' }] }] }, headers);
    expect(JSON.parse(role.text)).toMatchObject({ error: { code: 400, message: 'Please use a valid role: user, model.' } });
    const snake = await post(url('gemini-2.5-flash'), { contents: [{ parts: [{ text: 'hi' }] }], system_instruction: { parts: [{ text: 'sys' }] }, generation_config: { max_output_tokens: 3 } }, headers);
    expect(snake.status).toBe(200);
    expect(JSON.parse(snake.text)).toMatchObject({ candidates: [{ finishReason: 'MAX_TOKENS' }], usageMetadata: { promptTokenCount: 2, candidatesTokenCount: 3 } });
    // Not strict: the same unknown field and role are answered.
    expect((await post(`${sim.url}/v1beta/models/gemini-2.5-flash:generateContent`, { contents: [{ role: 'assistant', parts: [{ text: 'hi' }] }], temperature: 1 }, headers)).status).toBe(200);
  });

  it('Gemini 3: a function call replayed without its thoughtSignature (the sentinel passes)', async () => {
    const contents = (signature?: string): unknown[] => [
      { role: 'user', parts: [{ text: 'weather? #sim:tool=get_weather' }] },
      { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: WEATHER_ARGS }, ...(signature ? { thoughtSignature: signature } : {}) }] },
      { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { ok: true } } }] },
    ];
    const missing = await post(url('gemini-3.1-pro-preview'), { contents: contents(), tools: weatherTools }, headers);
    expect(missing.status).toBe(400);
    expect(JSON.parse(missing.text).error.message).toMatch(/^Function call is missing a thought_signature in functionCall parts\..*`default_api:get_weather` , position 2\./);
    expect((await post(url('gemini-3.1-pro-preview'), { contents: contents('skip_thought_signature_validator'), tools: weatherTools }, headers)).status).toBe(200);
    expect((await post(url('gemini-2.5-flash'), { contents: contents(), tools: weatherTools }, headers)).status).toBe(200);
  });

  it('an embedding model does not generate, a generative model does not embed, an unlisted model is not found', async () => {
    const gen = await rejection(strictAi.models.generateContent({ model: 'text-embedding-004', contents: 'hi' }));
    expect(gen.status).toBe(404);
    expect(envelope(gen).message).toMatch(/^models\/text-embedding-004 is not found for API version v1beta, or is not supported for generateContent\./);
    const emb = await rejection(strictAi.models.embedContent({ model: 'gemini-2.5-flash', contents: 'hi' }));
    expect(emb.status).toBe(404);
    const get = await rejection(strictAi.models.get({ model: 'gemini-0-unknown' }));
    expect(envelope(get).status).toBe('NOT_FOUND');
  });
});
