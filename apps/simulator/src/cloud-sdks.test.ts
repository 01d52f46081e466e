/**
 * The provider kinds' official SDKs against the simulator (issue 40): each parses its answers,
 * which proves the simulator speaks the real wire (URLs, SigV4, the binary event stream, OAuth
 * tokens, Azure's api-key and api-version), and each auth check refuses what the provider refuses.
 */
import { createSign } from 'node:crypto';
import { BedrockRuntimeClient, CountTokensCommand, InvokeModelCommand, InvokeModelWithResponseStreamCommand } from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { AnthropicBedrock } from '@anthropic-ai/bedrock-sdk';
import { AnthropicVertex } from '@anthropic-ai/vertex-sdk';
import { OAuth2Client } from 'google-auth-library';
import { AzureOpenAI } from 'openai';
import { GoogleGenAI } from '@google/genai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator, SIM_AWS_ACCESS_KEY_ID, SIM_AWS_SECRET_ACCESS_KEY, SIM_GOOGLE_PROJECT, type Simulator } from './index.ts';

const KEY = 'sk-cloud-test';
let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ port: 0, apiKey: KEY });
});
afterAll(() => sim.close());
beforeEach(() => {
  sim.stats.clear();
  sim.faults.clear();
});

const CLAUDE = 'anthropic.claude-sonnet-4-5-20250929-v1:0';
const question = { max_tokens: 64, messages: [{ role: 'user' as const, content: 'Hello there' }] };

function bedrockClient(secretAccessKey = SIM_AWS_SECRET_ACCESS_KEY): BedrockRuntimeClient {
  // HTTP/1.1 to a local port: the client's default handler is HTTP/2.
  return new BedrockRuntimeClient({ region: 'us-east-1', endpoint: sim.url, credentials: { accessKeyId: SIM_AWS_ACCESS_KEY_ID, secretAccessKey }, requestHandler: new NodeHttpHandler(), maxAttempts: 1 });
}

describe('Bedrock (InvokeModel with Anthropic bodies, SigV4)', () => {
  it('@aws-sdk/client-bedrock-runtime: InvokeModel and InvokeModelWithResponseStream, signature verified, the model id from the percent-encoded path', async () => {
    const client = bedrockClient();
    const body = JSON.stringify({ anthropic_version: 'bedrock-2023-05-31', ...question });
    const answer = await client.send(new InvokeModelCommand({ modelId: CLAUDE, contentType: 'application/json', accept: 'application/json', body }));
    const message = JSON.parse(new TextDecoder().decode(answer.body)) as { type: string; model: string; usage: { output_tokens: number } };
    expect(message).toMatchObject({ type: 'message', model: CLAUDE });
    const streamed = await client.send(new InvokeModelWithResponseStreamCommand({ modelId: CLAUDE, contentType: 'application/json', body }));
    const types: string[] = [];
    let metrics: unknown = null;
    for await (const part of streamed.body!) {
      const event = JSON.parse(new TextDecoder().decode(part.chunk!.bytes)) as { type: string; 'amazon-bedrock-invocationMetrics'?: unknown };
      types.push(event.type);
      if (event.type === 'message_stop') metrics = event['amazon-bedrock-invocationMetrics'];
    }
    expect(types[0]).toBe('message_start');
    expect(types.at(-1)).toBe('message_stop');
    expect(metrics).toMatchObject({ inputTokenCount: expect.any(Number), outputTokenCount: message.usage.output_tokens });
    expect(sim.stats.requests.map((r) => [r.model, r.stream])).toEqual([[CLAUDE, false], [CLAUDE, true]]);
  });

  it('refuses a wrong secret key (the signature does not match) and answers a throttle as ThrottlingException', async () => {
    await expect(bedrockClient('wrong-secret').send(new InvokeModelCommand({ modelId: CLAUDE, body: JSON.stringify({ anthropic_version: 'bedrock-2023-05-31', ...question }) }))).rejects.toMatchObject({
      name: 'InvalidSignatureException',
      $metadata: { httpStatusCode: 403 },
    });
    sim.faults.push({ match: { model: CLAUDE }, times: 1, behaviour: { failStatus: 429 } });
    await expect(bedrockClient().send(new InvokeModelCommand({ modelId: CLAUDE, body: JSON.stringify({ anthropic_version: 'bedrock-2023-05-31', ...question }) }))).rejects.toMatchObject({
      name: 'ThrottlingException',
      $metadata: { httpStatusCode: 429 },
    });
  });

  it('CountTokens: an InvokeModel body counted as the Messages count would', async () => {
    const counted = await bedrockClient().send(new CountTokensCommand({ modelId: CLAUDE, input: { invokeModel: { body: new TextEncoder().encode(JSON.stringify({ anthropic_version: 'bedrock-2023-05-31', ...question })) } } }));
    expect(counted.inputTokens).toBeGreaterThan(0);
  });

  it('a throttle after the 200: the stream carries a throttlingException message, which the SDK throws', async () => {
    sim.cloud.bedrockStreamExceptions.push('throttlingException');
    const read = async () => {
      const streamed = await bedrockClient().send(new InvokeModelWithResponseStreamCommand({ modelId: CLAUDE, body: JSON.stringify({ anthropic_version: 'bedrock-2023-05-31', ...question }) }));
      for await (const _part of streamed.body!) {
        // The exception is the stream's first message.
      }
    };
    await expect(read()).rejects.toMatchObject({ name: 'ThrottlingException' });
  });

  it('@anthropic-ai/bedrock-sdk: messages and a stream through its own signing and event-stream reading', async () => {
    const client = new AnthropicBedrock({ baseURL: sim.url, awsRegion: 'us-east-1', awsAccessKey: SIM_AWS_ACCESS_KEY_ID, awsSecretKey: SIM_AWS_SECRET_ACCESS_KEY, maxRetries: 0 });
    const message = await client.messages.create({ model: CLAUDE, ...question });
    expect(message).toMatchObject({ type: 'message', stop_reason: 'end_turn' });
    const stream = client.messages.stream({ model: CLAUDE, ...question });
    const text = await stream.finalText();
    expect(text.length).toBeGreaterThan(0);
    expect((await stream.finalMessage()).usage.output_tokens).toBe(message.usage.output_tokens);
  });
});

/** A token from the simulator's token endpoint through the key file's own grant (RS256 JWT bearer). */
async function vertexToken(): Promise<string> {
  const account = sim.cloud.serviceAccount(sim.url);
  const now = Math.floor(Date.now() / 1000);
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const unsigned = `${part({ alg: 'RS256', typ: 'JWT' })}.${part({ iss: account['client_email'], scope: 'https://www.googleapis.com/auth/cloud-platform', aud: account['token_uri'], iat: now, exp: now + 3600 })}`;
  const assertion = `${unsigned}.${createSign('RSA-SHA256').update(unsigned).sign(account['private_key']!).toString('base64url')}`;
  const response = await fetch(account['token_uri']!, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }) });
  expect(response.status).toBe(200);
  return ((await response.json()) as { access_token: string }).access_token;
}

function vertexClient(token: string): AnthropicVertex {
  const authClient = new OAuth2Client();
  authClient.setCredentials({ access_token: token });
  // The vertex SDK types its own copy of google-auth-library's AuthClient (another minor version).
  return new AnthropicVertex({ baseURL: `${sim.url}/v1`, projectId: SIM_GOOGLE_PROJECT, region: 'us-east5', authClient: authClient as unknown as ConstructorParameters<typeof AnthropicVertex>[0] extends infer O ? O extends { authClient?: infer A } ? A : never : never, maxRetries: 0 });
}

describe('Vertex AI (rawPredict / streamRawPredict, OAuth2)', () => {
  it('@anthropic-ai/vertex-sdk: messages and a stream with a token the simulator issued', async () => {
    const client = vertexClient(await vertexToken());
    const message = await client.messages.create({ model: 'claude-sonnet-4-5@20250929', ...question });
    expect(message).toMatchObject({ type: 'message', model: 'claude-sonnet-4-5@20250929' });
    const text = await client.messages.stream({ model: 'claude-sonnet-4-5@20250929', ...question }).finalText();
    expect(text.length).toBeGreaterThan(0);
    expect(sim.stats.requests.map((r) => r.stream)).toEqual([false, true]);
  });

  it('refuses a token it never issued, an expired one, and a forged grant; a quota answer is Google 429 RESOURCE_EXHAUSTED', async () => {
    await expect(vertexClient('ya29.made-up').messages.create({ model: 'claude-x', ...question })).rejects.toMatchObject({ status: 401 });
    const token = await vertexToken();
    sim.cloud.expireTokens();
    await expect(vertexClient(token).messages.create({ model: 'claude-x', ...question })).rejects.toMatchObject({ status: 401, error: { error: { status: 'UNAUTHENTICATED' } } });
    const forged = await fetch(`${sim.url}/oauth2/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: 'e30.e30.c2ln' }) });
    expect(forged.status).toBe(400);
    sim.faults.push({ match: { model: 'claude-x' }, times: 1, behaviour: { failStatus: 429 } });
    await expect(vertexClient(await vertexToken()).messages.create({ model: 'claude-x', ...question })).rejects.toMatchObject({ status: 429, error: { error: { code: 429, status: 'RESOURCE_EXHAUSTED' } } });
  });
});

describe('Gemini on Vertex AI (generateContent / streamGenerateContent, OAuth2)', () => {
  it('@google/genai in Vertex mode: a generation and a stream under the project, with a token the simulator issued', async () => {
    const authClient = new OAuth2Client();
    authClient.setCredentials({ access_token: await vertexToken() });
    const ai = new GoogleGenAI({ vertexai: true, project: SIM_GOOGLE_PROJECT, location: 'us-central1', httpOptions: { baseUrl: sim.url }, googleAuthOptions: { authClient: authClient as never } });
    const answer = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: [{ role: 'user', parts: [{ text: 'Hello there' }] }] });
    expect(answer.text!.length).toBeGreaterThan(0);
    expect(answer.usageMetadata?.candidatesTokenCount).toBeGreaterThan(0);
    let text = '';
    for await (const chunk of await ai.models.generateContentStream({ model: 'gemini-2.5-flash', contents: [{ role: 'user', parts: [{ text: 'Stream it' }] }] })) text += chunk.text ?? '';
    expect(text.length).toBeGreaterThan(0);
    expect(sim.stats.requests.map((r) => [r.model, r.stream])).toEqual([['gemini-2.5-flash', false], ['gemini-2.5-flash', true]]);
  });

  it('refuses a content without a role, as Vertex does', async () => {
    const response = await fetch(`${sim.url}/v1/projects/${SIM_GOOGLE_PROJECT}/locations/us-central1/publishers/google/models/gemini-2.5-flash:generateContent`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await vertexToken()}`, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ parts: [{ text: 'hi' }] }] }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT', message: 'Please use a valid role: user, model.' } });
  });
});

describe('Azure OpenAI (deployment and v1 forms, api-key)', () => {
  const azure = (apiKey = KEY) => new AzureOpenAI({ endpoint: sim.url, apiKey, apiVersion: '2024-10-21', deployment: 'gpt-4o-mini-prod', maxRetries: 0 });

  it('AzureOpenAI: a completion and a stream on the deployment, with Azure content-filter results', async () => {
    const completion = await azure().chat.completions.create({ model: 'ignored', ...question });
    expect(completion.model).toBe('gpt-4o-mini-prod');
    expect((completion as unknown as { prompt_filter_results: unknown[] }).prompt_filter_results).toHaveLength(1);
    const stream = await azure().chat.completions.create({ model: 'ignored', ...question, stream: true, stream_options: { include_usage: true } });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    // Azure's first chunk: no choices, only the prompt's filter results.
    expect(chunks[0]!.choices).toEqual([]);
    expect(chunks.at(-1)!.usage?.completion_tokens).toBe(completion.usage!.completion_tokens);
    expect(sim.stats.requests.map((r) => [r.model, r.stream])).toEqual([['gpt-4o-mini-prod', false], ['gpt-4o-mini-prod', true]]);
  });

  it('refuses a wrong key (401) and answers a throttle as 429 with retry-after and a string code', async () => {
    await expect(azure('wrong').chat.completions.create({ model: 'x', ...question })).rejects.toMatchObject({ status: 401 });
    sim.faults.push({ match: { model: 'gpt-4o-mini-prod' }, times: 1, behaviour: { failStatus: 429, retryAfter: 7 } });
    const error = await azure().chat.completions.create({ model: 'x', ...question }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 429, code: '429' });
    expect((error as { headers: Headers }).headers.get('retry-after')).toBe('7');
  });
});
