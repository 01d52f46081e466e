/**
 * The Gemini API answer: a GenerateContentResponse (`candidates`, `usageMetadata`, `modelVersion`,
 * `responseId`) and its stream (`?alt=sse`: one response per `data:` line, CRLF-framed; without
 * `alt=sse`: one JSON array). Built from the simulator's plan.
 */
import { geminiFrame, type Frame } from './sse.ts';
import { newId } from './ids.ts';
import type { GeminiInput } from './gemini-request.ts';
import type { FinishKind, Plan } from './plan.ts';
import { generateWords, splitPieces, toPieces } from './text-generator.ts';
import { valueFor } from './tool-args.ts';
import type { ReportedUsage } from './types.ts';
import { asObject } from './text-extract.ts';

/** Thought summary words shown at most (`includeThoughts`). */
const MAX_THOUGHT_WORDS = 6;

/** A value matching `schema` for a JSON answer: every declared property (not only the required ones). */
export function jsonValue(schema: unknown, depth = 0): unknown {
  const object = asObject(schema);
  const properties = asObject(object?.['properties']);
  if (!object || !properties || depth > 8) return valueFor(schema);
  const type = object['type'];
  if (type !== undefined && type !== 'object' && !(Array.isArray(type) && type.includes('object'))) return valueFor(schema);
  const out: Record<string, unknown> = {};
  for (const [name, s] of Object.entries(properties)) out[name] = jsonValue(s, depth + 1);
  return out;
}

/**
 * The plan as the Gemini answer gives it: with `responseMimeType: application/json`, the text is a
 * JSON value (matching the schema, else `{"answer": words}`) in pieces of about 10 characters, cut
 * at `maxOutputTokens` (MAX_TOKENS) like words are.
 */
export function geminiPlan(plan: Plan, input: GeminiInput): Plan {
  if (!input.json || plan.toolCall) return plan;
  const text = JSON.stringify(input.json.schema === null ? { answer: plan.text } : jsonValue(input.json.schema));
  let pieces = splitPieces(text);
  let finish: FinishKind = plan.finish === 'length' ? 'stop' : plan.finish;
  if (input.maxTokens !== null && pieces.length > input.maxTokens) {
    pieces = pieces.slice(0, input.maxTokens);
    finish = 'length';
  }
  return { ...plan, pieces, text: pieces.join(''), finish, stopSequence: null, outputTokens: pieces.length + plan.reasoningTokens };
}

/** Thought summary pieces (`includeThoughts`): up to 6 words, never more than the thought tokens. */
export function thoughtPieces(plan: Plan, input: GeminiInput): string[] {
  if (!input.includeThoughts || plan.reasoningTokens <= 0) return [];
  return toPieces(generateWords(`${input.lastUserText}#thought`, Math.min(MAX_THOUGHT_WORDS, plan.reasoningTokens)));
}

/** Thought tokens when `includeThoughts` asks for thoughts and no `#sim:reasoning=N` says how many. */
export const DEFAULT_THOUGHT_TOKENS = MAX_THOUGHT_WORDS;

/** What a signature this simulator issued decodes to the start of (strict mode refuses any other but Google's skip sentinel). */
export const SIGNATURE_HEAD = 'sim-thought-signature:';

function signature(): string {
  return Buffer.from(`${SIGNATURE_HEAD}${newId('')}`).toString('base64');
}

function finishReason(plan: Plan): string {
  return plan.finish === 'length' ? 'MAX_TOKENS' : 'STOP';
}

/**
 * `usageMetadata`: `final` the whole count (candidates exclude thoughts; total = prompt + candidates
 * + thoughts); otherwise the running count of a chunk before the last (prompt only). Zero thought
 * and cache counts are left out, as Google does.
 */
export function usageMetadata(plan: Plan, final: boolean): object {
  const input = plan.inputTokens;
  return {
    promptTokenCount: input,
    ...(final ? { candidatesTokenCount: plan.outputTokens - plan.reasoningTokens } : {}),
    totalTokenCount: final ? input + plan.outputTokens : input,
    ...(plan.cachedTokens > 0 ? { cachedContentTokenCount: plan.cachedTokens } : {}),
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: input }],
    ...(plan.cachedTokens > 0 ? { cacheTokensDetails: [{ modality: 'TEXT', tokenCount: plan.cachedTokens }] } : {}),
    ...(final && plan.reasoningTokens > 0 ? { thoughtsTokenCount: plan.reasoningTokens } : {}),
  };
}

/** The usage the stats record reports: output includes thoughts, input includes the cached part. */
export function reportedUsage(plan: Plan): ReportedUsage {
  return { input_tokens: plan.inputTokens, output_tokens: plan.outputTokens, cached_tokens: plan.cachedTokens, images: 0 };
}

function functionCallPart(plan: Plan, input: GeminiInput): Record<string, unknown> {
  const call = plan.toolCall!;
  const args = JSON.parse(call.arguments) as unknown;
  return {
    functionCall: { ...(input.signatures ? { id: newId('') } : {}), name: call.name, args },
    ...(input.signatures ? { thoughtSignature: signature() } : {}),
  };
}

interface Envelope {
  responseId: string;
  modelVersion: string;
}

function response(envelope: Envelope, parts: object[], finish: string | null, usage: object): object {
  return {
    candidates: [{ content: { parts, role: 'model' }, ...(finish === null ? {} : { finishReason: finish }), index: 0 }],
    usageMetadata: usage,
    modelVersion: envelope.modelVersion,
    responseId: envelope.responseId,
  };
}

function envelope(input: GeminiInput): Envelope {
  return { responseId: newId(''), modelVersion: input.model.startsWith('models/') ? input.model.slice('models/'.length) : input.model };
}

/** A blocked prompt: 200, no `candidates`, `promptFeedback.blockReason`, prompt usage only. */
export function blockedResponse(plan: Plan, input: GeminiInput, reason: string): object {
  const env = envelope(input);
  const usage = { promptTokenCount: plan.inputTokens, totalTokenCount: plan.inputTokens, promptTokensDetails: [{ modality: 'TEXT', tokenCount: plan.inputTokens }] };
  return { promptFeedback: { blockReason: reason }, usageMetadata: usage, modelVersion: env.modelVersion, responseId: env.responseId };
}

/** The non-streaming GenerateContentResponse. */
export function generateResponse(plan: Plan, input: GeminiInput): object {
  const thoughts = thoughtPieces(plan, input);
  const parts: object[] = thoughts.length > 0 ? [{ text: thoughts.join(''), thought: true }] : [];
  if (plan.toolCall) parts.push(functionCallPart(plan, input));
  else parts.push({ text: plan.text, ...(input.signatures ? { thoughtSignature: signature() } : {}) });
  return response(envelope(input), parts, finishReason(plan), usageMetadata(plan, true));
}

interface Chunk {
  payload: object;
  content: boolean;
}

/**
 * The stream's responses in order: thought summary words (`thought: true`), then one word per
 * chunk and a last chunk with an empty text part (carrying the signature on Gemini 3), the finish
 * reason and the whole usage; a function call arrives whole in one chunk that also finishes.
 * Every chunk repeats `modelVersion`, `responseId` and the running usage.
 */
function streamChunks(plan: Plan, input: GeminiInput): Chunk[] {
  const env = envelope(input);
  const running = usageMetadata(plan, false);
  const chunks: Chunk[] = [];
  for (const piece of thoughtPieces(plan, input)) chunks.push({ payload: response(env, [{ text: piece, thought: true }], null, running), content: false });
  if (plan.toolCall) {
    chunks.push({ payload: response(env, [functionCallPart(plan, input)], finishReason(plan), usageMetadata(plan, true)), content: true });
    return chunks;
  }
  for (const piece of plan.pieces) chunks.push({ payload: response(env, [{ text: piece }], null, running), content: true });
  const last = { text: '', ...(input.signatures ? { thoughtSignature: signature() } : {}) };
  chunks.push({ payload: response(env, [last], finishReason(plan), usageMetadata(plan, true)), content: false });
  return chunks;
}

/**
 * `sse`: one `data: <json>\r\n\r\n` frame per response. Otherwise Google's JSON-array stream
 * (`[{…}` then `,\r\n{…}` per element, then `]`), as served without `alt=sse`.
 */
export function encodeStream(chunks: readonly Chunk[], sse: boolean): Frame[] {
  if (sse) return chunks.map((chunk) => geminiFrame(chunk.payload, chunk.content));
  const frames: Frame[] = chunks.map((chunk, i) => ({ text: `${i === 0 ? '[' : ',\r\n'}${JSON.stringify(chunk.payload)}`, content: chunk.content }));
  frames.push({ text: chunks.length === 0 ? '[]' : ']', content: false });
  return frames;
}

export function generateFrames(plan: Plan, input: GeminiInput, sse: boolean): Frame[] {
  return encodeStream(streamChunks(plan, input), sse);
}

export function blockedFrames(plan: Plan, input: GeminiInput, reason: string, sse: boolean): Frame[] {
  return encodeStream([{ payload: blockedResponse(plan, input, reason), content: false }], sse);
}
