/**
 * AWS Bedrock Runtime's InvokeModel / InvokeModelWithResponseStream for Claude
 * (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModel.html):
 * `POST /model/{modelId}/invoke[-with-response-stream]`, SigV4-signed (service `bedrock`) and
 * verified here with the AWS SDKs' own signer; the body is Anthropic's Messages without `model` and
 * `stream`, with `anthropic_version`. The stream is `application/vnd.amazon.eventstream`: one `chunk`
 * message per Anthropic event, `{"bytes": base64}`, encoded with the AWS codec; errors are
 * `{"message"}` with `x-amzn-ErrorType`.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Sha256 } from '@aws-crypto/sha256-js';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { SignatureV4 } from '@smithy/signature-v4';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import type { SimContext } from './context.ts';
import type { CloudAccounts } from './cloud-accounts.ts';
import { ConverseStreamEncoder, converseFromMessage, messagesFromConverse } from './bedrock-converse.ts';
import { forwardInner, innerErrorMessage, jsonObject, readRaw, sendProviderError } from './dialect-front.ts';

const codec = new EventStreamCodec(toUtf8, fromUtf8);

/** Bedrock's exception names by status (the model's `smithy.api#httpError`). */
function exceptionFor(status: number): string {
  switch (status) {
    case 400: return 'ValidationException';
    case 403: return 'AccessDeniedException';
    case 404: return 'ResourceNotFoundException';
    case 408: return 'ModelTimeoutException';
    case 429: return 'ThrottlingException';
    case 503: return 'ServiceUnavailableException';
    default: return status >= 500 ? 'InternalServerException' : 'ValidationException';
  }
}

function bedrockError(res: ServerResponse, status: number, exception: string, message: string): void {
  sendProviderError(res, status, { message }, { 'x-amzn-errortype': `${exception}:http://internal.amazon.com/coral/com.amazon.bedrock/` });
}

/** One event-stream message carrying one Anthropic event. */
function chunkMessage(event: Record<string, unknown>): Uint8Array {
  return codec.encode({
    headers: {
      ':event-type': { type: 'string', value: 'chunk' },
      ':content-type': { type: 'string', value: 'application/json' },
      ':message-type': { type: 'string', value: 'event' },
    },
    body: fromUtf8(JSON.stringify({ bytes: Buffer.from(JSON.stringify(event)).toString('base64') })),
  });
}

/** An exception message after the 200 (a throttle mid-stream). */
export function exceptionMessage(exception: string, message: string): Uint8Array {
  return codec.encode({
    headers: {
      ':exception-type': { type: 'string', value: exception },
      ':content-type': { type: 'string', value: 'application/json' },
      ':message-type': { type: 'string', value: 'exception' },
    },
    body: fromUtf8(JSON.stringify({ message })),
  });
}

/** The inner generator's error answer as Bedrock's: `{"message"}` with the exception in `x-amzn-errortype`. */
function bedrockErrorAnswer(status: number, answer: Buffer): { status: number; headers: Record<string, string>; body: string } {
  return { status, headers: { 'content-type': 'application/json', 'x-amzn-errortype': `${exceptionFor(status)}:http://internal.amazon.com/coral/com.amazon.bedrock/` }, body: JSON.stringify({ message: innerErrorMessage(answer) }) };
}

/** A 200 event stream whose one message is a queued exception (a throttle after the 200). */
function throttledStream(res: ServerResponse, exception: string): void {
  res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-requestid': crypto.randomUUID() });
  res.end(Buffer.from(exceptionMessage(exception, 'Too many requests, please wait before trying again.')));
}

/** The inner Messages stream's text -> its whole events, in order; a frame cut between writes waits for the next. */
function anthropicEvents(): (text: string) => Record<string, unknown>[] {
  let pending = '';
  return (text) => {
    pending += text;
    const frames = pending.split('\n\n');
    pending = frames.pop() ?? '';
    const events: Record<string, unknown>[] = [];
    for (const frame of frames) {
      const data = frame.split('\n').find((line) => line.startsWith('data: '))?.slice(6);
      if (data !== undefined) events.push(JSON.parse(data) as Record<string, unknown>);
    }
    return events;
  };
}

/**
 * Checks the request's SigV4 signature by signing it again with the same signer: the path as
 * received, the signed headers' received values, the body's own hash. Null when it holds; else
 * the reason (403, as Bedrock answers a bad signature).
 */
async function signatureError(req: IncomingMessage, raw: Buffer, accounts: CloudAccounts): Promise<string | null> {
  const authorization = req.headers.authorization ?? '';
  const match = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]+)$/.exec(authorization);
  if (!match) return 'Missing Authentication Token';
  const [, accessKeyId, , region, service, signedList, signature] = match as unknown as [string, string, string, string, string, string, string];
  if (accessKeyId !== accounts.aws.accessKeyId) return 'The security token included in the request is invalid.';
  if (service !== 'bedrock') return `Credential should be scoped to correct service: 'bedrock'.`;
  const amzDate = String(req.headers['x-amz-date'] ?? '');
  const contentHash = req.headers['x-amz-content-sha256'];
  if (contentHash !== undefined && contentHash !== createHash('sha256').update(raw).digest('hex')) return 'The request body does not match its x-amz-content-sha256.';
  const signedNames = signedList.split(';');
  const url = new URL(req.url ?? '/', 'http://simulator');
  const signer = new SignatureV4({ service, region, credentials: accounts.aws, sha256: Sha256, uriEscapePath: true });
  // Signed `host` values differ by client (with or without the port): try what was received, then the bare host name.
  const hosts = [String(req.headers.host ?? ''), String(req.headers.host ?? '').replace(/:\d+$/, '')];
  for (const host of hosts) {
    const headers: Record<string, string> = {};
    for (const name of signedNames) headers[name] = name === 'host' ? host : String(req.headers[name] ?? '');
    const query: Record<string, string> = {};
    url.searchParams.forEach((value, key) => { query[key] = value; });
    const date = new Date(`${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 8)}T${amzDate.slice(9, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13, 15)}Z`);
    if (Number.isNaN(date.getTime())) return 'The request has no valid x-amz-date.';
    const resigned = await signer.sign(
      { method: req.method ?? 'POST', protocol: 'http:', hostname: host, path: url.pathname, query, headers, body: raw },
      { signingDate: date, signableHeaders: new Set(signedNames), unsignableHeaders: new Set(Object.keys(req.headers).filter((name) => !signedNames.includes(name))) },
    );
    if (String(resigned.headers['authorization'] ?? '').endsWith(`Signature=${signature}`)) return null;
  }
  return 'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method.';
}

/**
 * CountTokens (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_CountTokens.html):
 * `{"input":{"invokeModel":{"body": base64 of an InvokeModel body}}}` -> `{"inputTokens": N}`.
 */
async function countTokens(ctx: SimContext, req: IncomingMessage, res: ServerResponse, model: string, raw: Buffer): Promise<void> {
  const encoded = (jsonObject(raw)?.['input'] as { invokeModel?: { body?: unknown } } | undefined)?.invokeModel?.body;
  const invoke = typeof encoded === 'string' ? jsonObject(Buffer.from(encoded, 'base64')) : null;
  if (invoke === null || typeof invoke['anthropic_version'] !== 'string') return bedrockError(res, 400, 'ValidationException', 'The provided request is not valid: input.invokeModel.body must be a base64 InvokeModel body with anthropic_version.');
  const { anthropic_version: _version, anthropic_beta: _betas, max_tokens: _max, ...rest } = invoke;
  await forwardInner(ctx, req, res, { url: '/v1/messages/count_tokens', headers: { 'anthropic-version': '2023-06-01', 'x-api-key': ctx.apiKey ?? 'bedrock' }, body: { ...rest, model } }, {
    whole(status, headers, answer) {
      if (status >= 400) return bedrockErrorAnswer(status, answer);
      return { status, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ inputTokens: (jsonObject(answer)?.['input_tokens'] as number | undefined) ?? 0 }) };
    },
  });
}

/** Converse / ConverseStream (bedrock-converse.ts): the body checked and answered by the Messages generator, in Converse's words. */
async function converse(ctx: SimContext, accounts: CloudAccounts, req: IncomingMessage, res: ServerResponse, model: string, stream: boolean, raw: Buffer): Promise<void> {
  const body = jsonObject(raw);
  if (body === null) return bedrockError(res, 400, 'ValidationException', 'Malformed input request, please reformat your input and try again.');
  const messages = messagesFromConverse(body, model, stream);
  if (typeof messages === 'string') return bedrockError(res, 400, 'ValidationException', messages);
  const exception = stream ? accounts.bedrockStreamExceptions.shift() : undefined;
  if (exception !== undefined) {
    return throttledStream(res, exception);
  }
  const encoder = new ConverseStreamEncoder();
  const events = anthropicEvents();
  await forwardInner(ctx, req, res, { url: '/v1/messages', headers: { 'anthropic-version': '2023-06-01', 'x-api-key': ctx.apiKey ?? 'bedrock' }, body: messages }, {
    streamHead: () => ({ 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-requestid': crypto.randomUUID() }),
    streamChunk: (text) => Buffer.concat(events(text).flatMap((event) => encoder.event(event))),
    whole(status, _headers, answer) {
      if (status < 400) return { status, headers: { 'content-type': 'application/json', 'x-amzn-requestid': crypto.randomUUID() }, body: JSON.stringify(converseFromMessage(jsonObject(answer) ?? {})) };
      return bedrockErrorAnswer(status, answer);
    },
  });
}

export function isBedrockRequest(path: string): boolean {
  return path.startsWith('/model/');
}

export async function handleBedrock(ctx: SimContext, accounts: CloudAccounts, req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
  const raw = await readRaw(req);
  const refused = await signatureError(req, raw, accounts);
  if (refused !== null) {
    const exception = refused.startsWith('The security token') ? 'UnrecognizedClientException' : refused.startsWith('Missing') ? 'MissingAuthenticationTokenException' : 'InvalidSignatureException';
    return bedrockError(res, 403, exception, refused);
  }
  const counting = /^\/model\/([^/]+)\/count-tokens$/.exec(path);
  if (counting) return countTokens(ctx, req, res, decodeURIComponent(counting[1] as string), raw);
  const conversing = /^\/model\/([^/]+)\/(converse|converse-stream)$/.exec(path);
  if (conversing) return converse(ctx, accounts, req, res, decodeURIComponent(conversing[1] as string), conversing[2] === 'converse-stream', raw);
  const match = /^\/model\/([^/]+)\/(invoke|invoke-with-response-stream)$/.exec(path);
  if (!match) return bedrockError(res, 404, 'UnknownOperationException', `Unknown operation ${path}`);
  const model = decodeURIComponent(match[1] as string);
  const stream = match[2] === 'invoke-with-response-stream';
  const body = jsonObject(raw);
  if (body === null) return bedrockError(res, 400, 'ValidationException', 'Malformed input request, please reformat your input and try again.');
  if (typeof body['anthropic_version'] !== 'string') return bedrockError(res, 400, 'ValidationException', 'Malformed input request: #: required key [anthropic_version] not found, please reformat your input and try again.');
  if (body['model'] !== undefined || body['stream'] !== undefined) return bedrockError(res, 400, 'ValidationException', 'Malformed input request: #: extraneous key [model/stream] is not permitted, please reformat your input and try again.');
  const exception = stream ? accounts.bedrockStreamExceptions.shift() : undefined;
  if (exception !== undefined) {
    return throttledStream(res, exception);
  }
  const { anthropic_version: _version, anthropic_beta: betas, ...rest } = body;
  const headers: Record<string, string> = { 'anthropic-version': '2023-06-01', 'x-api-key': ctx.apiKey ?? 'bedrock' };
  if (Array.isArray(betas)) headers['anthropic-beta'] = betas.join(',');
  const events = anthropicEvents();
  let inputTokens = 0;
  let outputTokens = 0;
  await forwardInner(ctx, req, res, { url: '/v1/messages', headers, body: { ...rest, model, stream } }, {
    streamHead: () => ({ 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-bedrock-content-type': 'application/json', 'x-amzn-requestid': crypto.randomUUID() }),
    streamChunk(text) {
      // Whole SSE frames per write: each Anthropic event becomes one message.
      const messages: Uint8Array[] = [];
      for (const event of events(text)) {
        const usage = (event['message'] as { usage?: { input_tokens?: number } } | undefined)?.usage ?? (event['usage'] as { input_tokens?: number; output_tokens?: number } | undefined);
        if (typeof usage?.input_tokens === 'number') inputTokens = usage.input_tokens;
        if (event['type'] === 'message_delta' && typeof (event['usage'] as { output_tokens?: number } | undefined)?.output_tokens === 'number') outputTokens = (event['usage'] as { output_tokens: number }).output_tokens;
        if (event['type'] === 'message_stop') event['amazon-bedrock-invocationMetrics'] = { inputTokenCount: inputTokens, outputTokenCount: outputTokens, invocationLatency: 1, firstByteLatency: 1 };
        messages.push(chunkMessage(event));
      }
      return Buffer.concat(messages);
    },
    whole(status, headers, answer) {
      if (status < 400) {
        const parsed = jsonObject(answer);
        const usage = parsed?.['usage'] as { input_tokens?: number; output_tokens?: number } | undefined;
        return {
          status,
          headers: { 'content-type': 'application/json', 'x-amzn-requestid': crypto.randomUUID(), 'x-amzn-bedrock-input-token-count': String(usage?.input_tokens ?? 0), 'x-amzn-bedrock-output-token-count': String(usage?.output_tokens ?? 0) },
          body: answer,
        };
      }
      return bedrockErrorAnswer(status, answer);
    },
  });
}
