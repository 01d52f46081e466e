/**
 * Strict mode (`startSimulator({ strict: true })`, `SIMULATOR_STRICT=1`): the simulator refuses what
 * the real provider refuses for the model named, with that provider's status and error body, so a
 * client test fails where production would. The per-model facts are in model-capabilities.ts; a model
 * it does not know is only held to its provider's rules that do not depend on the model (roles).
 *
 * - OpenAI chat: a role other than system/developer/user/assistant/tool/function; `reasoning_effort`
 *   to a model without reasoning; `max_tokens` to a reasoning model (it takes `max_completion_tokens`);
 *   `max_completion_tokens` / `max_tokens` above the model's maximum.
 * - OpenAI Responses: a message role other than user/assistant/system/developer; `reasoning.effort`
 *   or `include: ["reasoning.encrypted_content"]` to a model without reasoning; `max_output_tokens`
 *   above the maximum.
 * - Anthropic Messages (roles are checked in every mode, see anthropic-messages.ts): `max_tokens`
 *   above the maximum; `thinking` (other than disabled) to a model without it; `temperature` /
 *   `top_p` / `top_k` under `anthropic-version: 2026-10-21` to a model without sampling; `temperature`
 *   with `top_p` to Claude 4.5+ 4.x models.
 * - Gemini API (generateContent, streamGenerateContent; geminiStrictRefusal): a top-level field
 *   Google does not know ("Invalid JSON payload received. Unknown name ..."); a content role other
 *   than user/model; `maxOutputTokens` above the model's maximum; `thinkingBudget: 0` to a model that
 *   cannot turn thinking off (Gemini 2.5 Pro); `thinkingLevel` with `thinkingBudget`, on a model
 *   before Gemini 3, or a level the model does not take (MINIMAL on Pro); on Gemini 3, a model turn of the current step whose
 *   first function call comes back without its `thoughtSignature`, or with one Google did not issue
 *   (altered, or another provider's: "Corrupted thought signature."; the skip sentinel passes).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { ErrorSpec } from './errors.ts';
import { capabilitiesFor, NO_SAMPLING_ANTHROPIC_VERSION } from './model-capabilities.ts';
import { SIGNATURE_HEAD } from './gemini-generate.ts';
import { field, lastUserContent, partsOf, unknownField, unknownFieldError } from './gemini-request.ts';
import { asObject } from './text-extract.ts';

const CHAT_ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool', 'function']);
const RESPONSES_ROLES = new Set(['user', 'assistant', 'system', 'developer']);

function present(value: unknown): boolean {
  return value !== undefined && value !== null;
}

function unsupported(param: string): ErrorSpec {
  return { status: 400, message: `Unsupported parameter: '${param}' is not supported with this model.`, param, code: 'unsupported_parameter' };
}

function chatRefusal(body: Record<string, unknown>, model: string): ErrorSpec | null {
  const messages = Array.isArray(body['messages']) ? body['messages'] : [];
  for (const [i, m] of messages.entries()) {
    const role = asObject(m)?.['role'];
    if (typeof role !== 'string' || !CHAT_ROLES.has(role)) {
      return {
        status: 400,
        message: `Invalid value: '${String(role)}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.`,
        param: `messages[${i}].role`,
        code: 'invalid_value',
      };
    }
  }
  const caps = capabilitiesFor(model);
  if (!caps) return null;
  if (!caps.reasoning && present(body['reasoning_effort'])) return unsupported('reasoning_effort');
  if (caps.reasoning && present(body['max_tokens'])) {
    return { ...unsupported('max_tokens'), message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead." };
  }
  for (const field of ['max_completion_tokens', 'max_tokens']) {
    const n = body[field];
    if (typeof n === 'number' && n > caps.maxOutputTokens) {
      return {
        status: 400,
        message: `${field} is too large: ${n}. This model supports at most ${caps.maxOutputTokens} completion tokens, whereas you provided ${n}.`,
        param: field,
        code: 'invalid_value',
      };
    }
  }
  return null;
}

function responsesRefusal(body: Record<string, unknown>, model: string): ErrorSpec | null {
  const input = Array.isArray(body['input']) ? body['input'] : [];
  for (const [i, item] of input.entries()) {
    const it = asObject(item);
    if (!it || (it['type'] !== undefined && it['type'] !== 'message') || !('role' in it)) continue;
    const role = it['role'];
    if (typeof role !== 'string' || !RESPONSES_ROLES.has(role)) {
      return {
        status: 400,
        message: `Invalid value: '${String(role)}'. Supported values are: 'assistant', 'system', 'developer', and 'user'.`,
        param: `input[${i}].role`,
        code: 'invalid_value',
      };
    }
  }
  const caps = capabilitiesFor(model);
  if (!caps) return null;
  if (!caps.reasoning && present(asObject(body['reasoning'])?.['effort'])) return unsupported('reasoning.effort');
  // "Encrypted content is not supported with this model."
  if (!caps.reasoning && Array.isArray(body['include']) && body['include'].includes('reasoning.encrypted_content')) return unsupported('include');
  const n = body['max_output_tokens'];
  if (typeof n === 'number' && n > caps.maxOutputTokens) {
    return {
      status: 400,
      message: `Invalid 'max_output_tokens': integer above maximum value. Expected a value <= ${caps.maxOutputTokens}, but got ${n} instead.`,
      param: 'max_output_tokens',
      code: 'integer_above_max_value',
    };
  }
  return null;
}

function anthropicVersions(headers: IncomingHttpHeaders): string[] {
  const value = headers['anthropic-version'];
  const text = Array.isArray(value) ? value.join(',') : (value ?? '');
  return text.split(',').map((v) => v.trim());
}

function messagesRefusal(body: Record<string, unknown>, model: string, headers: IncomingHttpHeaders): ErrorSpec | null {
  const caps = capabilitiesFor(model);
  if (!caps) return null;
  const invalid = (message: string): ErrorSpec => ({ status: 400, message });
  const maxTokens = body['max_tokens'];
  if (typeof maxTokens === 'number' && maxTokens > caps.maxOutputTokens) {
    return invalid(`max_tokens: ${maxTokens} > ${caps.maxOutputTokens}, which is the maximum allowed number of output tokens for ${model}`);
  }
  const thinking = asObject(body['thinking']);
  if (!caps.reasoning && thinking && thinking['type'] !== 'disabled') {
    return invalid(`thinking: '${model}' does not support thinking.`);
  }
  const sampling = ['temperature', 'top_p', 'top_k'].filter((field) => present(body[field]));
  if (!caps.sampling && sampling.length > 0 && anthropicVersions(headers).includes(NO_SAMPLING_ANTHROPIC_VERSION)) {
    return invalid(`${sampling[0]}: sampling parameters (temperature, top_p, top_k) are not supported by ${model}; remove them.`);
  }
  if (caps.samplingExclusive && sampling.includes('temperature') && sampling.includes('top_p')) {
    return invalid('`temperature` and `top_p` cannot both be specified for this model. Please use only one.');
  }
  return null;
}

/** The provider's 400 for what strict mode refuses in `body` on `path`, or null when it is accepted. */
export function strictRefusal(path: string, body: Record<string, unknown>, headers: IncomingHttpHeaders = {}): ErrorSpec | null {
  const model = typeof body['model'] === 'string' ? body['model'] : '';
  if (path === '/v1/chat/completions') return chatRefusal(body, model);
  if (path === '/v1/responses') return responsesRefusal(body, model);
  if (path === '/v1/messages') return messagesRefusal(body, model, headers);
  return null;
}

/** Google's sentinel for a function call whose signature is lost: accepted, unverified. */
const SKIP_SIGNATURE = 'skip_thought_signature_validator';

/**
 * Google's 400 for a Gemini 3 function call replayed without its signature, or with one Google did
 * not issue (`skip_thought_signature_validator` passes).
 */
function missingSignature(contents: readonly unknown[]): ErrorSpec | null {
  const from = lastUserContent(contents).index + 1;
  for (let i = Math.max(0, from); i < contents.length; i++) {
    if (asObject(contents[i])?.['role'] !== 'model') continue;
    const first = partsOf(contents[i]).find((part) => field(part, 'functionCall') !== undefined);
    if (!first) continue;
    const signature = field(first, 'thoughtSignature');
    if (typeof signature === 'string' && signature.length > 0) {
      if (signature === SKIP_SIGNATURE || Buffer.from(signature, 'base64').toString('utf8').startsWith(SIGNATURE_HEAD)) continue;
      return { status: 400, message: 'Corrupted thought signature.' };
    }
    const name = asObject(field(first, 'functionCall'))?.['name'];
    return {
      status: 400,
      message: `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${String(name)}\` , position ${i + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`,
    };
  }
  return null;
}

/** Google's 400 for what the Gemini API refuses in a GenerateContentRequest to `model`, or null. */
export function geminiStrictRefusal(body: Record<string, unknown>, model: string): ErrorSpec | null {
  const unknown = unknownField(body);
  if (unknown !== null) return unknownFieldError(unknown);
  const contents = Array.isArray(body['contents']) ? body['contents'] : [];
  for (const content of contents) {
    const role = asObject(content)?.['role'];
    if (role !== undefined && role !== '' && role !== 'user' && role !== 'model') {
      return { status: 400, message: 'Please use a valid role: user, model.' };
    }
  }
  const caps = capabilitiesFor(model);
  if (!caps) return null;
  const config = asObject(field(body, 'generationConfig'));
  const max = field(config, 'maxOutputTokens');
  if (typeof max === 'number' && max > caps.maxOutputTokens) {
    return {
      status: 400,
      message: `Unable to submit request because it has a maxOutputTokens value of ${max} but the supported range is from 1 (inclusive) to ${caps.maxOutputTokens + 1} (exclusive). Update the value and try again.`,
    };
  }
  const thinking = asObject(field(config, 'thinkingConfig'));
  const budget = field(thinking, 'thinkingBudget');
  const level = field(thinking, 'thinkingLevel');
  if (level !== undefined && budget !== undefined) {
    return { status: 400, message: 'You can only set only one of thinking budget and thinking level.' };
  }
  if (level !== undefined && !caps.thinkingLevels) return { status: 400, message: 'Thinking level is not supported for this model.' };
  if (level !== undefined && !caps.thinkingLevels!.includes(String(level).toUpperCase())) {
    return { status: 400, message: `Thinking level ${String(level)} is not supported for this model.` };
  }
  if (caps.thinkingRequired && budget === 0) {
    return { status: 400, message: 'Budget 0 is invalid. This model only works in thinking mode.' };
  }
  if (caps.thoughtSignatures) return missingSignature(contents);
  return null;
}
