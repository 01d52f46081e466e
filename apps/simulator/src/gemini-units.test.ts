/** Unit tests of the Gemini request reader, the strict rules, the frames and the key check. */
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { geminiAuthError } from './context.ts';
import { googleErrorBody } from './errors.ts';
import { encodeStream, generateFrames, geminiPlan, jsonValue, SIGNATURE_HEAD, usageMetadata } from './gemini-generate.ts';
import { geminiModelList } from './gemini-models.ts';
import { isGeminiRequest, normalizeSchema, parseGeminiRoute, readGenerateRequest, unknownField, type GeminiInput } from './gemini-request.ts';
import { makePlan } from './plan.ts';
import { geminiStrictRefusal } from './strict.ts';
import { DEFAULT_BEHAVIOUR } from './types.ts';
import { startSimulator } from './index.ts';
import { post } from './test-helpers.ts';

/** Gemini CLI 0.61's streamGenerateContent body (client-captures-2026-11), texts shortened. */
const CLI_STREAM_BODY = {
  contents: [{ parts: [{ text: '<session_context>\nThis is the Gemini CLI.' }, { text: 'say hi' }], role: 'user' }],
  systemInstruction: { parts: [{ text: 'You are Gemini CLI, an autonomous CLI agent.' }], role: 'user' },
  tools: [
    {
      functionDeclarations: [
        { name: 'list_directory', description: 'Lists a directory.', parametersJsonSchema: { type: 'object', properties: { dir_path: { type: 'string' } }, required: ['dir_path'] } },
        { name: 'read_file', description: 'Reads a file.', parametersJsonSchema: { type: 'object', properties: { file_path: { type: 'string' }, start_line: { type: 'integer', minimum: 1 } }, required: ['file_path'] } },
      ],
    },
  ],
  generationConfig: { temperature: 1, topP: 0.95, topK: 64, thinkingConfig: { includeThoughts: true, thinkingLevel: 'HIGH' } },
};

/** Gemini CLI 0.61's router generateContent body: upper-case responseJsonSchema types. */
const CLI_ROUTER_BODY = {
  contents: [
    { parts: [{ text: '<session_context>' }], role: 'user' },
    { parts: [{ text: 'say hi' }], role: 'user' },
  ],
  systemInstruction: { parts: [{ text: 'You are a specialized Task Routing AI.' }], role: 'user' },
  generationConfig: {
    temperature: 1,
    topP: 0.95,
    topK: 64,
    responseMimeType: 'application/json',
    responseJsonSchema: {
      type: 'OBJECT',
      properties: { complexity_reasoning: { type: 'STRING', description: 'Brief explanation.' }, complexity_score: { type: 'INTEGER' } },
      required: ['complexity_reasoning', 'complexity_score'],
    },
    thinkingConfig: { includeThoughts: true, thinkingLevel: 'HIGH' },
  },
};

function read(body: Record<string, unknown>, model = 'gemini-3.1-pro-preview', stream = false): GeminiInput {
  const input = readGenerateRequest(body, model, stream);
  if ('status' in input) throw new Error(input.message);
  return input;
}

function fakeReq(method: string, headers: Record<string, string> = {}): IncomingMessage {
  return { method, headers } as unknown as IncomingMessage;
}

describe('routes', () => {
  it('parses /v1beta and /v1 model routes', () => {
    expect(parseGeminiRoute('/v1beta/models')).toEqual({ kind: 'list', version: 'v1beta' });
    expect(parseGeminiRoute('/v1/models/gemini-2.5-flash')).toEqual({ kind: 'get', version: 'v1', model: 'gemini-2.5-flash' });
    expect(parseGeminiRoute('/v1beta/models/gemini-3.1-pro-preview:streamGenerateContent')).toEqual({ kind: 'method', version: 'v1beta', model: 'gemini-3.1-pro-preview', method: 'streamGenerateContent' });
    expect(parseGeminiRoute('/v1beta/models/x:predict')).toEqual({ kind: 'unknown', version: 'v1beta' });
    expect(parseGeminiRoute('/v1beta/cachedContents')).toEqual({ kind: 'unknown', version: 'v1beta' });
    expect(parseGeminiRoute('/v2/models')).toBeNull();
  });

  it('takes /v1 for Gemini only on a POST to a method, or a GET with a Google header or ?key=', () => {
    const none = new URLSearchParams();
    expect(isGeminiRequest(fakeReq('POST'), '/v1/models/gemini-2.5-flash:generateContent', none)).toBe(true);
    expect(isGeminiRequest(fakeReq('GET'), '/v1/models', none)).toBe(false);
    expect(isGeminiRequest(fakeReq('GET', { 'x-goog-api-key': 'k' }), '/v1/models', none)).toBe(true);
    expect(isGeminiRequest(fakeReq('GET', { 'x-goog-api-client': 'google-genai-sdk/3.3.0' }), '/v1/models/gemini-2.5-pro', none)).toBe(true);
    expect(isGeminiRequest(fakeReq('GET'), '/v1/models', new URLSearchParams('key=k'))).toBe(true);
    expect(isGeminiRequest(fakeReq('GET', { 'x-goog-api-key': 'k', 'anthropic-version': '2023-06-01' }), '/v1/models', none)).toBe(false);
    expect(isGeminiRequest(fakeReq('GET'), '/v1/models/ft:gpt-4o-mini:org::abc', none)).toBe(false);
    expect(isGeminiRequest(fakeReq('POST'), '/v1/chat/completions', none)).toBe(false);
    expect(isGeminiRequest(fakeReq('GET'), '/v1beta/anything', none)).toBe(true);
  });
});

describe('the request reader', () => {
  it("reads Gemini CLI's stream body: the last user text, prompt characters, tools, thoughts, signatures", () => {
    const input = read(CLI_STREAM_BODY, 'gemini-3.1-pro-preview', true);
    expect(input.lastUserText).toBe('<session_context>\nThis is the Gemini CLI.\nsay hi');
    expect(input.inputChars).toBe('<session_context>\nThis is the Gemini CLI.'.length + 'say hi'.length + 'You are Gemini CLI, an autonomous CLI agent.'.length);
    expect(input.tools.map((t) => t.name)).toEqual(['list_directory', 'read_file']);
    expect(input).toMatchObject({ stream: true, includeThoughts: true, signatures: true, json: null, maxTokens: null, toolChoice: { mode: 'auto' }, lastIsToolResult: false, toolRounds: 0 });
    expect(geminiStrictRefusal(CLI_STREAM_BODY, 'gemini-3.1-pro-preview')).toBeNull();
  });

  it("reads the router body: JSON answer with the schema's types lower-cased", () => {
    const input = read(CLI_ROUTER_BODY, 'gemini-3.5-flash-lite');
    expect(input.lastUserText).toBe('say hi');
    expect(input.json?.schema).toEqual({
      type: 'object',
      properties: { complexity_reasoning: { type: 'string', description: 'Brief explanation.' }, complexity_score: { type: 'integer' } },
      required: ['complexity_reasoning', 'complexity_score'],
    });
    expect(jsonValue(input.json?.schema)).toEqual({ complexity_reasoning: 'test', complexity_score: 1 });
    expect(geminiStrictRefusal(CLI_ROUTER_BODY, 'gemini-3.5-flash-lite')).toBeNull();
  });

  it('function calling: tool results, rounds since the prompt, tool config modes, OpenAPI parameters', () => {
    const body = {
      contents: [
        { role: 'user', parts: [{ text: 'go #sim:tool=a #sim:tool=b' }] },
        { role: 'model', parts: [{ functionCall: { name: 'a', args: { x: 1 } } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'a', response: { ok: true } } }] },
      ],
      tools: [{ functionDeclarations: [{ name: 'a', parameters: { type: 'OBJECT', properties: { n: { type: 'INTEGER' } }, required: ['n'] } }, { name: 'b' }] }],
      toolConfig: { functionCallingConfig: { mode: 'ANY' } },
    };
    const input = read(body, 'gemini-2.5-flash');
    expect(input).toMatchObject({ lastIsToolResult: true, toolRounds: 1, toolChoice: { mode: 'required' }, signatures: false });
    expect(input.tools[0]!.schema).toEqual({ type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] });
    expect(input.inputChars).toBe('go #sim:tool=a #sim:tool=b'.length + JSON.stringify({ x: 1 }).length + JSON.stringify({ ok: true }).length);
    expect(read({ ...body, toolConfig: { function_calling_config: { mode: 'ANY', allowed_function_names: ['b'] } } }, 'gemini-2.5-flash').toolChoice).toEqual({ mode: 'named', name: 'b' });
    expect(read({ ...body, toolConfig: { functionCallingConfig: { mode: 'NONE' } } }, 'gemini-2.5-flash').toolChoice).toEqual({ mode: 'none' });
    // The second directive answers after one round.
    const plan = makePlan(input, 12, DEFAULT_BEHAVIOUR, { strict: true, toolDirectives: [{ name: 'a', args: null }, { name: 'b', args: null }] });
    expect(plan.toolCall?.name).toBe('b');
  });

  it('generationConfig in either spelling; thinking off with budget 0; no thoughts from a model without thinking', () => {
    const snake = read({ contents: [{ parts: [{ text: 'x' }] }], generation_config: { max_output_tokens: 7, stop_sequences: ['a', 1], thinking_config: { include_thoughts: true } } }, 'gemini-2.5-flash');
    expect(snake).toMatchObject({ maxTokens: 7, stop: ['a'], includeThoughts: true });
    expect(read({ contents: [{ parts: [{ text: 'x' }] }], generationConfig: { thinkingConfig: { includeThoughts: true, thinkingBudget: 0 } } }, 'gemini-2.5-flash').includeThoughts).toBe(false);
    expect(read({ contents: [{ parts: [{ text: 'x' }] }], generationConfig: { thinkingConfig: { includeThoughts: true } } }, 'gemini-2.0-flash').includeThoughts).toBe(false);
  });

  it("refuses what Google refuses in every mode: no contents, empty parts", () => {
    expect(readGenerateRequest({}, 'm', false)).toEqual({ status: 400, message: '* GenerateContentRequest.contents: contents is not specified\n' });
    expect(readGenerateRequest({ contents: [{ role: 'user', parts: [] }] }, 'm', false)).toEqual({ status: 400, message: '* GenerateContentRequest.contents[0].parts: contents.parts must not be empty.\n' });
  });

  it('normalizeSchema lower-cases only Google type names, recursively', () => {
    expect(normalizeSchema({ type: 'ARRAY', items: { type: 'OBJECT', properties: { a: { type: 'STRING', nullable: true } } }, anyOf: [{ type: 'NUMBER' }] })).toEqual({
      type: 'array',
      items: { type: 'object', properties: { a: { type: 'string', nullable: true } } },
      anyOf: [{ type: 'number' }],
    });
    expect(normalizeSchema({ type: 'object', properties: { type: { type: 'string' } } })).toEqual({ type: 'object', properties: { type: { type: 'string' } } });
  });
});

describe('strict rules', () => {
  it('thinking: a level or a budget, never both; no level before Gemini 3; only the levels the model takes; budget 0 where thinking cannot be off', () => {
    const sent = (thinkingConfig: object, model: string) => geminiStrictRefusal({ contents: [], generationConfig: { thinkingConfig } }, model);
    expect(sent({ thinkingLevel: 'HIGH', thinkingBudget: 1024 }, 'gemini-3.1-pro-preview')?.message).toBe('You can only set only one of thinking budget and thinking level.');
    expect(sent({ thinkingLevel: 'LOW' }, 'gemini-2.5-flash')?.message).toBe('Thinking level is not supported for this model.');
    expect(sent({ thinking_level: 'LOW' }, 'gemini-2.5-pro')?.status).toBe(400);
    expect(sent({ thinkingLevel: 'MINIMAL' }, 'gemini-3.1-pro-preview')?.message).toBe('Thinking level MINIMAL is not supported for this model.');
    expect(sent({ thinkingLevel: 'MEDIUM' }, 'gemini-3-pro-preview')?.status).toBe(400);
    for (const level of ['LOW', 'MEDIUM', 'HIGH']) expect(sent({ thinkingLevel: level }, 'gemini-3.1-pro-preview')).toBeNull();
    for (const level of ['MINIMAL', 'low', 'MEDIUM', 'HIGH']) expect(sent({ thinkingLevel: level }, 'gemini-3.8-flash')).toBeNull();
    expect(sent({ thinkingBudget: 2048 }, 'gemini-2.5-flash')).toBeNull();
    expect(sent({ thinkingBudget: 0 }, 'gemini-2.5-flash')).toBeNull();
    expect(sent({ thinkingBudget: 0 }, 'gemini-2.5-pro')?.message).toBe('Budget 0 is invalid. This model only works in thinking mode.');
    expect(sent({ thinkingBudget: 128 }, 'gemini-2.5-pro')).toBeNull();
  });

  it('unknown top-level fields (camel or snake names known), roles, output maximum', () => {
    expect(unknownField({ contents: [], systemInstruction: {}, system_instruction: {}, generation_config: {}, safetySettings: [], cachedContent: 'c' })).toBeNull();
    expect(unknownField({ contents: [], messages: [] })).toBe('messages');
    expect(geminiStrictRefusal({ contents: [], stream: true }, 'gemini-2.5-flash')).toMatchObject({ status: 400, message: 'Invalid JSON payload received. Unknown name "stream": Cannot find field.' });
    expect(geminiStrictRefusal({ contents: [{ role: 'system', parts: [{ text: 'x' }] }] }, 'unknown-model')?.message).toBe('Please use a valid role: user, model.');
    expect(geminiStrictRefusal({ contents: [{ parts: [{ text: 'x' }] }] }, 'unknown-model')).toBeNull();
    expect(geminiStrictRefusal({ contents: [], generationConfig: { maxOutputTokens: 8193 } }, 'gemini-2.0-flash')?.message).toContain('to 8193 (exclusive)');
    expect(geminiStrictRefusal({ contents: [], generationConfig: { maxOutputTokens: 8192 } }, 'gemini-2.0-flash')).toBeNull();
  });

  it('Gemini 3 signatures: only the first call of a model turn of the current step is checked', () => {
    const call = (signature?: string): object => ({ functionCall: { name: 'f', args: {} }, ...(signature ? { thoughtSignature: signature } : {}) });
    const older = { contents: [{ role: 'user', parts: [{ text: 'a' }] }, { role: 'model', parts: [call()] }, { role: 'user', parts: [{ text: 'b' }] }] };
    expect(geminiStrictRefusal(older, 'gemini-3.1-pro-preview')).toBeNull();
    const issued = Buffer.from(`${SIGNATURE_HEAD}abc`).toString('base64');
    const second = { contents: [{ role: 'user', parts: [{ text: 'a' }] }, { role: 'model', parts: [call(issued), call()] }] };
    expect(geminiStrictRefusal(second, 'gemini-3.1-pro-preview')).toBeNull();
    const missing = { contents: [{ role: 'user', parts: [{ text: 'a' }] }, { role: 'model', parts: [{ text: 'thinking' }, call()] }] };
    expect(geminiStrictRefusal(missing, 'gemini-3.1-pro-preview')?.message).toContain('position 2');
    // A signature Google did not issue (another provider's, or one a gateway tagged and did not untag) is corrupted; the sentinel passes.
    for (const forged of ['c2ln', `gemini.signature:${issued}`]) {
      const sent = { contents: [{ role: 'user', parts: [{ text: 'a' }] }, { role: 'model', parts: [call(forged)] }] };
      expect(geminiStrictRefusal(sent, 'gemini-3.1-pro-preview')).toEqual({ status: 400, message: 'Corrupted thought signature.' });
      expect(geminiStrictRefusal(sent, 'gemini-2.5-flash')).toBeNull();
    }
    const skipped = { contents: [{ role: 'user', parts: [{ text: 'a' }] }, { role: 'model', parts: [call('skip_thought_signature_validator')] }] };
    expect(geminiStrictRefusal(skipped, 'gemini-3.1-pro-preview')).toBeNull();
  });
});

describe('frames and usage', () => {
  const input = read({ contents: [{ parts: [{ text: 'frames' }] }] }, 'gemini-2.5-flash', true);

  it('SSE frames: one data line per response ended by CRLF CRLF; the last carries finish and the whole usage', () => {
    const plan = makePlan(input, 3, { ...DEFAULT_BEHAVIOUR, reasoning: 4, cached: 1 });
    const frames = generateFrames(plan, input, true);
    expect(frames.map((f) => f.content)).toEqual([true, true, true, false]);
    for (const frame of frames) expect(frame.text).toMatch(/^data: \{[^\r\n]*\}\r\n\r\n$/);
    const last = JSON.parse(frames.at(-1)!.text.slice(6)) as { candidates: Array<{ finishReason: string; content: { parts: unknown[] } }>; usageMetadata: object };
    expect(last.candidates[0]!.finishReason).toBe('STOP');
    expect(last.candidates[0]!.content.parts).toEqual([{ text: '' }]);
    expect(last.usageMetadata).toEqual({
      promptTokenCount: 2,
      candidatesTokenCount: 3,
      totalTokenCount: 9,
      cachedContentTokenCount: 1,
      promptTokensDetails: [{ modality: 'TEXT', tokenCount: 2 }],
      cacheTokensDetails: [{ modality: 'TEXT', tokenCount: 1 }],
      thoughtsTokenCount: 4,
    });
  });

  it('the JSON-array form (no alt=sse) is one valid array', () => {
    const plan = makePlan(input, 2, DEFAULT_BEHAVIOUR);
    const text = generateFrames(plan, input, false).map((f) => f.text).join('');
    expect(text.startsWith('[{')).toBe(true);
    expect(text).toContain('},\r\n{');
    expect(JSON.parse(text)).toHaveLength(3);
    expect(encodeStream([], false).map((f) => f.text).join('')).toBe('[]');
  });

  it('usage before the last chunk is prompt only; zero thought and cache counts are left out', () => {
    const plan = makePlan(input, 5, DEFAULT_BEHAVIOUR);
    expect(usageMetadata(plan, false)).toEqual({ promptTokenCount: 2, totalTokenCount: 2, promptTokensDetails: [{ modality: 'TEXT', tokenCount: 2 }] });
    expect(usageMetadata(plan, true)).toEqual({ promptTokenCount: 2, candidatesTokenCount: 5, totalTokenCount: 7, promptTokensDetails: [{ modality: 'TEXT', tokenCount: 2 }] });
  });

  it('a JSON answer is cut at maxOutputTokens pieces (MAX_TOKENS)', () => {
    const json = read({ contents: [{ parts: [{ text: 'j' }] }], generationConfig: { responseMimeType: 'application/json', maxOutputTokens: 2 } }, 'gemini-2.5-flash');
    const plan = geminiPlan(makePlan(json, 12, DEFAULT_BEHAVIOUR), json);
    expect(plan.finish).toBe('length');
    expect(plan.pieces).toHaveLength(2);
    expect(plan.outputTokens).toBe(2);
  });
});

describe('keys, envelope, model list', () => {
  const req = (headers: Record<string, string>): IncomingMessage => fakeReq('POST', headers);

  it('x-goog-api-key first, then ?key=, then Bearer; none is 403', () => {
    const q = new URLSearchParams();
    expect(geminiAuthError(req({}), q, null)).toBeNull();
    expect(geminiAuthError(req({ 'x-goog-api-key': 'k' }), q, 'k')).toBeNull();
    expect(geminiAuthError(req({ 'x-goog-api-key': 'bad' }), new URLSearchParams('key=k'), 'k')?.status).toBe(400);
    expect(geminiAuthError(req({ 'x-goog-api-key': '' }), new URLSearchParams('key=k'), 'k')).toBeNull();
    expect(geminiAuthError(req({ authorization: 'Bearer k' }), q, 'k')).toBeNull();
    expect(geminiAuthError(req({ authorization: 'Bearer x' }), q, 'k')?.status).toBe(401);
    expect(geminiAuthError(req({}), q, 'k')?.status).toBe(403);
  });

  it("Google's envelope: code, message, status from the HTTP status, details only when given", () => {
    expect(googleErrorBody({ status: 404, message: 'gone' })).toEqual({ error: { code: 404, message: 'gone', status: 'NOT_FOUND' } });
    expect(googleErrorBody({ status: 529, message: 'x' })).toEqual({ error: { code: 529, message: 'x', status: 'INTERNAL' } });
    expect(googleErrorBody({ status: 400, message: 'x', googleStatus: 'FAILED_PRECONDITION', details: [{ '@type': 't' }] })).toEqual({ error: { code: 400, message: 'x', status: 'FAILED_PRECONDITION', details: [{ '@type': 't' }] } });
  });

  it('pages the model list with pageSize and pageToken', () => {
    const page = geminiModelList(['a', 'b', 'c'], '2', null) as { models: Array<{ name: string }>; nextPageToken?: string };
    expect(page.models.map((m) => m.name)).toEqual(['models/a', 'models/b']);
    expect(page.nextPageToken).toBe('2');
    const rest = geminiModelList(['a', 'b', 'c'], '2', '2') as { models: Array<{ name: string }>; nextPageToken?: string };
    expect(rest.models.map((m) => m.name)).toEqual(['models/c']);
    expect(rest.nextPageToken).toBeUndefined();
  });
});

describe('stream faults on the wire', () => {
  it('#sim:cut_after=N sends N word chunks then closes without a finish; the record says cut', async () => {
    const sim = await startSimulator();
    try {
      const response = await fetch(`${sim.url}/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ contents: [{ parts: [{ text: 'cut #sim:cut_after=2' }] }] }),
      });
      const text = await response.text().catch(() => '');
      expect(text).not.toContain('finishReason');
      expect(sim.stats.last).toMatchObject({ provider: 'gemini', outcome: 'cut', chunksSent: 2 });
      const hang = post(`${sim.url}/v1beta/models/gemini-2.5-flash:generateContent`, { contents: [{ parts: [{ text: 'x #sim:latency_ms=30' }] }] });
      expect((await hang).status).toBe(200);
      expect(sim.stats.last?.behaviourSource).toBe('directive');
    } finally {
      await sim.close();
    }
  });
});
